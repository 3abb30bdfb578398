/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A circular doubly linked list, as the kernel's <linux/list.h>, reduced to
 * what the runtime uses.
 */
#ifndef AIFS_SERVER_LIST_H
#define AIFS_SERVER_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct aifs_list {
	struct aifs_list *next, *prev;
};

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

static inline void aifs_list_init(struct aifs_list *head)
{
	head->next = head->prev = head;
}

static inline bool aifs_list_empty(const struct aifs_list *head)
{
	return head->next == head;
}

static inline void aifs_list_add_tail(struct aifs_list *entry,
				      struct aifs_list *head)
{
	entry->prev = head->prev;
	entry->next = head;
	head->prev->next = entry;
	head->prev = entry;
}

static inline void aifs_list_del(struct aifs_list *entry)
{
	entry->prev->next = entry->next;
	entry->next->prev = entry->prev;
	aifs_list_init(entry);
}

/* Move every entry of @from to the end of @to, leaving @from empty. */
static inline void aifs_list_splice_tail(struct aifs_list *from,
					 struct aifs_list *to)
{
	if (aifs_list_empty(from))
		return;
	from->next->prev = to->prev;
	to->prev->next = from->next;
	from->prev->next = to;
	to->prev = from->prev;
	aifs_list_init(from);
}

#define aifs_list_first(head, type, member) \
	container_of((head)->next, type, member)

/* Iterate, allowing the current entry to be removed. */
#define aifs_list_for_each_safe(pos, tmp, head) \
	for (pos = (head)->next, tmp = pos->next; pos != (head); \
	     pos = tmp, tmp = pos->next)

#endif /* AIFS_SERVER_LIST_H */
