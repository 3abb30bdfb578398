// SPDX-License-Identifier: GPL-2.0
/* kernel_connect() takes a struct sockaddr_unsized (after 6.12). */
#include <linux/net.h>
#include <linux/socket.h>

int aifs_probe(struct socket *sock, struct sockaddr_storage *addr, int len)
{
	return kernel_connect(sock, (struct sockaddr_unsized *)addr, len, 0);
}
