// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Socket addresses as the logs and the tools show them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "aifs/libaifs.h"

void aifs_addr_name(const struct sockaddr *sa, unsigned int len, char *name,
		    size_t size)
{
	char host[NI_MAXHOST], port[NI_MAXSERV];

	if (getnameinfo(sa, len, host, sizeof(host), port, sizeof(port),
			NI_NUMERICHOST | NI_NUMERICSERV)) {
		snprintf(name, size, "?");
		return;
	}
	snprintf(name, size, sa->sa_family == AF_INET6 ? "[%s]:%s" : "%s:%s",
		 host, port);
}

int aifs_addr_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	return ntohs(((const struct sockaddr_in *)sa)->sin_port);
}

int aifs_parse_hostport(const char *s, char *host, size_t host_size,
			char *port, size_t port_size)
{
	const char *colon, *end = s + strlen(s);

	if (*s == '[') {
		colon = strchr(s, ']');
		if (!colon || colon[1] != ':')
			return -EINVAL;
		s++;
		end = colon++;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return -EINVAL;
		end = colon;
	}
	if (end == s || !colon[1] || (size_t)(end - s) >= host_size ||
	    strlen(colon + 1) >= port_size)
		return -EINVAL;
	snprintf(host, host_size, "%.*s", (int)(end - s), s);
	snprintf(port, port_size, "%s", colon + 1);
	return 0;
}

int aifs_wire_addr_host(const struct aifs_addr *a, char *host,
			size_t host_size, char *port, size_t port_size)
{
	int family = le16_to_cpu(a->family) == AIFS_AF_INET ? AF_INET :
							    AF_INET6;

	if (!inet_ntop(family, a->addr, host, host_size))
		return -EINVAL;
	snprintf(port, port_size, "%u", le16_to_cpu(a->port));
	return 0;
}
