// SPDX-License-Identifier: MIT
/*
 * lock_stress.h - the host tests' mutual-exclusion stress, for either lock kind.
 *
 * Threads take one lock around a read, a random pause and a write of a
 * plain counter, and mark themselves inside while they hold it.  A lock
 * that admits two holders at once loses an update (the counter ends short
 * of the acquisitions) or lets a thread find the section occupied; both are
 * checked.  test_spinlock.c runs it on the ticket lock (and its busted
 * build on a lock that does nothing), test_qspinlock.c on the queued kind
 * with some acquisitions by spin_trylock.  Include after check.h.
 */
#ifndef TESTS_HOST_LOCK_STRESS_H
#define TESTS_HOST_LOCK_STRESS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "platform.h"
#include "platform_host.h"
#include "spinlock.h"

/* How long each stress configuration runs, and how short a critical section may be. */
#define LOCK_STRESS_MS		60
#define LOCK_STRESS_MIN_OPS	10
#define LOCK_STRESS_MAX_THREADS 8
/* Longest pause inside the critical section, in PAUSEs (widens any race window). */
#define LOCK_STRESS_HOLD_PAUSES_MAX 32
/* With trylocks: every this many acquisitions one is a spin_trylock (retried until it takes). */
#define LOCK_STRESS_TRYLOCK_EVERY 4

struct lock_stress {
	spinlock_t lock;
	void (*acquire)(spinlock_t *lock);
	void (*release)(spinlock_t *lock);
	bool trylocks;		/* some acquisitions by spin_trylock */
	unsigned long counter;	/* plain on purpose: only the lock protects it */
	int inside;		/* plain on purpose: set while someone is in the section */
	unsigned long overlaps; /* entries that found someone inside (under the lock) */
	int stop;
	pthread_barrier_t start;
};

struct lock_stress_worker {
	struct lock_stress *s;
	unsigned id;
	unsigned long ops;
	unsigned seed;
};

static inline bool lock_stress_take(struct lock_stress *s, unsigned long ops)
{
	if (s->trylocks && ops % LOCK_STRESS_TRYLOCK_EVERY == LOCK_STRESS_TRYLOCK_EVERY - 1)
		return spin_trylock(&s->lock);
	s->acquire(&s->lock);
	return true;
}

static inline void *lock_stress_worker(void *arg)
{
	struct lock_stress_worker *w = arg;
	struct lock_stress *s = w->s;

	host_set_cpu_id(w->id);
	pthread_barrier_wait(&s->start);
	while (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED) || w->ops < LOCK_STRESS_MIN_OPS) {
		unsigned long c;
		unsigned pauses = (unsigned)rand_r(&w->seed) % LOCK_STRESS_HOLD_PAUSES_MAX;

		if (!lock_stress_take(s, w->ops))
			continue;
		if (s->inside)
			s->overlaps++;
		s->inside = 1;
		c = s->counter;
		for (unsigned i = 0; i < pauses; i++)
			platform_relax();
		s->counter = c + 1;
		s->inside = 0;
		s->release(&s->lock);
		w->ops++;
	}
	return NULL;
}

/*
 * Run @threads workers on @s (its lock free, its functions set) for
 * LOCK_STRESS_MS, then check that no update was lost and nobody found the
 * section occupied.  The caller checks the lock's state afterwards.
 */
static inline void lock_stress_run(struct lock_stress *s, unsigned threads)
{
	struct lock_stress_worker w[LOCK_STRESS_MAX_THREADS];
	pthread_t tid[LOCK_STRESS_MAX_THREADS];
	struct timespec pause = {0, LOCK_STRESS_MS * 1000000L};
	unsigned long total = 0;

	pthread_barrier_init(&s->start, NULL, threads + 1);
	host_set_cpu_count(threads + 1);
	for (unsigned i = 0; i < threads; i++) {
		w[i] = (struct lock_stress_worker){.s = s, .id = i + 1, .seed = i * 7919u + 1};
		pthread_create(&tid[i], NULL, lock_stress_worker, &w[i]);
	}
	pthread_barrier_wait(&s->start);
	nanosleep(&pause, NULL);
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < threads; i++) {
		pthread_join(tid[i], NULL);
		total += w[i].ops;
	}
	pthread_barrier_destroy(&s->start);
	printf("# %u threads: %lu lock/unlock pairs, counter %lu, overlaps %lu\n", threads, total,
	       s->counter, s->overlaps);
	CHECK(s->counter == total, "%u threads: counter %lu, expected %lu (lost updates)", threads,
	      s->counter, total);
	CHECK(s->overlaps == 0, "%u threads: %lu entries found the section occupied", threads,
	      s->overlaps);
}

#endif /* TESTS_HOST_LOCK_STRESS_H */
