// SPDX-License-Identifier: MIT
/*
 * test_slots.c - fs_slots_index and fs_slots_free on pointers that are no
 * slot: each is refused, and none is compared or subtracted as a pointer
 * against the slots' base (ASan's pointer-compare and pointer-subtract
 * checks, with detect_invalid_pointer_pairs, stop the test if one is).
 */
#include "check.h"
#include "slots.h"

#include <stdlib.h>

#define NSLOTS	  8
#define SLOT_SIZE 64

/* Read by the ASan runtime: check every pointer pair, not only ones it can see are related. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_invalid_pointer_pairs=2";
}

int main(void)
{
	struct fs_slots s;
	char on_stack[SLOT_SIZE];
	char *on_heap = malloc(SLOT_SIZE);
	void *obj;

	CHECK(on_heap != NULL, "malloc");
	CHECK(fs_slots_init(&s, NSLOTS, SLOT_SIZE) == 0, "fs_slots_init");
	obj = fs_slots_alloc(&s, FS_SLOT_NODE);
	CHECK(obj != NULL, "fs_slots_alloc");

	CHECK(fs_slots_index(&s, obj) >= 0 && fs_slots_index(&s, obj) < NSLOTS,
	      "a slot's own start: %ld", fs_slots_index(&s, obj));
	CHECK(fs_slots_index(&s, (char *)obj + 1) == -1, "inside a slot: %ld",
	      fs_slots_index(&s, (char *)obj + 1));
	CHECK(fs_slots_index(&s, NULL) == -1, "NULL");
	CHECK(fs_slots_index(&s, on_stack) == -1, "a stack address");
	CHECK(fs_slots_index(&s, on_heap) == -1, "a C heap address");

	/* Frees of pointers that are no slot: counted, and nothing else happens. */
	fs_slots_free(&s, on_stack);
	fs_slots_free(&s, on_heap);
	CHECK(s.double_frees == 2, "bad frees counted: %llu", (unsigned long long)s.double_frees);
	fs_slots_free(&s, obj);
	CHECK(s.double_frees == 2 && s.frees == 1, "a real free: %llu frees",
	      (unsigned long long)s.frees);

	fs_slots_fini(&s);
	free(on_heap);
	return check_exit("test_slots");
}
