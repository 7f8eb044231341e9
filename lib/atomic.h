// SPDX-License-Identifier: MIT
/*
 * atomic.h - the few x86-64 atomic operations the locks are built from.
 *
 * Why a file of our own: the kernel is freestanding, the lockref needs
 * instructions no compiler builtin names (CMPXCHG8B on a 64-bit word), and the
 * host tests need the very same functions in a form ThreadSanitizer can follow.
 * So every operation exists twice behind one name:
 *
 *   default              inline assembly with the LOCK prefix, the code the
 *                        kernel runs (Intel SDM Vol. 2A "CMPXCHG", "CMPXCHG8B/
 *                        CMPXCHG16B", Vol. 2B "XADD").
 *   LIB_ATOMIC_BUILTINS  GCC __atomic builtins, for TSan, which cannot see
 *                        through inline assembly.  One exception,
 *                        the 16-byte compare-exchange: see atomic_cmpxchg128.
 *
 * Ordering: on x86 a LOCK-prefixed instruction is a full barrier and plain
 * loads and stores are acquire and release respectively (Intel SDM Vol. 3A
 * 8.2.2), so the assembly forms need only compiler barriers ("memory"
 * clobbers).  The builtin forms name the ordering they rely on so TSan can
 * check it: sequentially consistent read-modify-writes, acquire loads,
 * release stores, relaxed where the comment says so.
 */
#ifndef LIB_ATOMIC_H
#define LIB_ATOMIC_H

#include <stdbool.h>
#include <stdint.h>

typedef unsigned __int128 atomic_u128;

/* Stop the compiler from moving memory accesses across this point. */
static inline void atomic_compiler_barrier(void)
{
	__asm__ __volatile__("" ::: "memory");
}

/*
 * A full barrier: no later load passes an earlier store (the one reordering
 * x86 does, SDM Vol. 3A 8.2.3.4).  A locked OR of 0 into the stack's top
 * word, which only this CPU touches: cheaper than MFENCE on most cores.
 * The builtin form is a sequentially consistent read-modify-write of a
 * local, since TSan supports no __atomic_thread_fence.
 */
static inline void atomic_full_fence(void)
{
#ifdef LIB_ATOMIC_BUILTINS
	uint32_t local = 0;

	__atomic_fetch_or(&local, 0, __ATOMIC_SEQ_CST);
#else
	__asm__ __volatile__("lock; orl $0, (%%rsp)" ::: "memory", "cc");
#endif
}

/* Spin-wait hint: PAUSE lets the sibling hyperthread run and eases the exit from a spin loop. */
static inline void atomic_pause(void)
{
	__asm__ __volatile__("pause" ::: "memory");
}

/*
 * The 128-bit compare-exchange, CMPXCHG16B: RDX:RAX against m128, RCX:RBX
 * stored on success.  @p must be 16-aligned (else #GP) and the CPU must
 * report CPUID.01H:ECX.CX16[bit 13]; callers check that first.
 */
static inline bool atomic_cmpxchg16b_insn(atomic_u128 *p, atomic_u128 *old, atomic_u128 new)
{
	bool ok;
	uint64_t lo = (uint64_t)*old, hi = (uint64_t)(*old >> 64);

	__asm__ __volatile__("lock cmpxchg16b %1"
			     : "=@ccz"(ok), "+m"(*p), "+a"(lo), "+d"(hi)
			     : "b"((uint64_t) new), "c"((uint64_t)(new >> 64))
			     : "memory");
	*old = ((atomic_u128)hi << 64) | lo;
	return ok;
}

#ifndef LIB_ATOMIC_BUILTINS

/* Loads are acquire and stores release on x86; the volatile access keeps the compiler honest. */
static inline uint8_t atomic_load8(const uint8_t *p)
{
	uint8_t v = *(const volatile uint8_t *)p;

	atomic_compiler_barrier();
	return v;
}

static inline void atomic_store8(uint8_t *p, uint8_t v)
{
	atomic_compiler_barrier();
	*(volatile uint8_t *)p = v;
}

static inline uint16_t atomic_load16(const uint16_t *p)
{
	uint16_t v = *(const volatile uint16_t *)p;

	atomic_compiler_barrier();
	return v;
}

static inline uint32_t atomic_load32(const uint32_t *p)
{
	uint32_t v = *(const volatile uint32_t *)p;

	atomic_compiler_barrier();
	return v;
}

static inline uint64_t atomic_load64(const uint64_t *p)
{
	uint64_t v = *(const volatile uint64_t *)p;

	atomic_compiler_barrier();
	return v;
}

static inline void atomic_store16(uint16_t *p, uint16_t v)
{
	atomic_compiler_barrier();
	*(volatile uint16_t *)p = v;
}

static inline void atomic_store32(uint32_t *p, uint32_t v)
{
	atomic_compiler_barrier();
	*(volatile uint32_t *)p = v;
}

static inline void atomic_store64(uint64_t *p, uint64_t v)
{
	atomic_compiler_barrier();
	*(volatile uint64_t *)p = v;
}

/*
 * Relaxed forms, where no order with other accesses is needed: data one CPU
 * writes and others only sample (statistics), or a word read as a hint and
 * ordered by other means (the paravirtual lock's mode).  On x86 the same
 * instructions; under TSan they promise no ordering.
 */
static inline uint64_t atomic_load64_relaxed(const uint64_t *p)
{
	return *(const volatile uint64_t *)p;
}

static inline void atomic_store64_relaxed(uint64_t *p, uint64_t v)
{
	*(volatile uint64_t *)p = v;
}

static inline uint8_t atomic_load8_relaxed(const uint8_t *p)
{
	return *(const volatile uint8_t *)p;
}

static inline uint32_t atomic_load32_relaxed(const uint32_t *p)
{
	return *(const volatile uint32_t *)p;
}

static inline void atomic_store32_relaxed(uint32_t *p, uint32_t v)
{
	*(volatile uint32_t *)p = v;
}

/*
 * Exchange: store @v and return the old value.  XCHG with a memory operand
 * is locked without a prefix (SDM Vol. 2B "XCHG"), so it is also a full
 * barrier: the store that no later load may pass.
 */
static inline uint8_t atomic_xchg8(uint8_t *p, uint8_t v)
{
	__asm__ __volatile__("xchgb %0, %1" : "+q"(v), "+m"(*p) : : "memory");
	return v;
}

static inline uint16_t atomic_xchg16(uint16_t *p, uint16_t v)
{
	__asm__ __volatile__("xchgw %0, %1" : "+r"(v), "+m"(*p) : : "memory");
	return v;
}

static inline uint32_t atomic_xchg32(uint32_t *p, uint32_t v)
{
	__asm__ __volatile__("xchgl %0, %1" : "+r"(v), "+m"(*p) : : "memory");
	return v;
}

static inline uint64_t atomic_xchg64(uint64_t *p, uint64_t v)
{
	__asm__ __volatile__("xchgq %0, %1" : "+r"(v), "+m"(*p) : : "memory");
	return v;
}

/*
 * Pointers of any type, for RCU's publish and dereference (fs/rcu.h) and
 * pointer exchanges: the same plain moves and XCHG as above, typed by the
 * pointer they access.
 */
#define atomic_load_ptr(pp)                                                                        \
	({                                                                                         \
		__typeof__(*(pp)) v_ = *(volatile __typeof__(*(pp)) *)(pp);                        \
		atomic_compiler_barrier();                                                         \
		v_;                                                                                \
	})
#define atomic_store_ptr(pp, v)                                                                    \
	do {                                                                                       \
		atomic_compiler_barrier();                                                         \
		*(volatile __typeof__(*(pp)) *)(pp) = (v);                                         \
	} while (0)
#define atomic_xchg_ptr(pp, v)                                                                     \
	({                                                                                         \
		__typeof__(*(pp)) v_ = (v);                                                        \
		__asm__ __volatile__("xchgq %0, %1" : "+r"(v_), "+m"(*(pp)) : : "memory");         \
		v_;                                                                                \
	})

/* Add @v to *@p; returns the value *@p held before. */
static inline uint32_t atomic_xadd32(uint32_t *p, uint32_t v)
{
	__asm__ __volatile__("lock xaddl %0, %1" : "+r"(v), "+m"(*p) : : "memory", "cc");
	return v;
}

static inline uint16_t atomic_xadd16(uint16_t *p, uint16_t v)
{
	__asm__ __volatile__("lock xaddw %0, %1" : "+r"(v), "+m"(*p) : : "memory", "cc");
	return v;
}

static inline uint64_t atomic_xadd64(uint64_t *p, uint64_t v)
{
	__asm__ __volatile__("lock xaddq %0, %1" : "+r"(v), "+m"(*p) : : "memory", "cc");
	return v;
}

/*
 * Set bit @bit of *@p and return whether it was set before: LOCK BTS, one
 * locked instruction (a full barrier) that cannot fail, where a
 * compare-exchange loop could be made to retry without end.
 */
static inline bool atomic_test_and_set_bit32(uint32_t *p, unsigned bit)
{
	bool was;

	__asm__ __volatile__("lock btsl %2, %1" : "=@ccc"(was), "+m"(*p) : "Ir"(bit) : "memory");
	return was;
}

/*
 * Compare-exchange: if *@p equals *@old, store @new and return true;
 * otherwise copy the current *@p into *@old and return false.
 */
static inline bool atomic_cmpxchg8(uint8_t *p, uint8_t *old, uint8_t new)
{
	bool ok;

	__asm__ __volatile__("lock cmpxchgb %3, %1"
			     : "=@ccz"(ok), "+m"(*p), "+a"(*old)
			     : "q"(new)
			     : "memory");
	return ok;
}

static inline bool atomic_cmpxchg16(uint16_t *p, uint16_t *old, uint16_t new)
{
	bool ok;

	__asm__ __volatile__("lock cmpxchgw %3, %1"
			     : "=@ccz"(ok), "+m"(*p), "+a"(*old)
			     : "r"(new)
			     : "memory");
	return ok;
}

static inline bool atomic_cmpxchg32(uint32_t *p, uint32_t *old, uint32_t new)
{
	bool ok;

	__asm__ __volatile__("lock cmpxchgl %3, %1"
			     : "=@ccz"(ok), "+m"(*p), "+a"(*old)
			     : "r"(new)
			     : "memory");
	return ok;
}

/*
 * The 64-bit compare-exchange with the REX.W form of CMPXCHG.  This and
 * CMPXCHG8B below do the same job; the lockref policy's cas picks one
 * (lockref.cas=), so a boot can time them side by side.
 */
static inline bool atomic_cmpxchg64_q(uint64_t *p, uint64_t *old, uint64_t new)
{
	bool ok;

	__asm__ __volatile__("lock cmpxchgq %3, %1"
			     : "=@ccz"(ok), "+m"(*p), "+a"(*old)
			     : "r"(new)
			     : "memory");
	return ok;
}

/*
 * The 64-bit compare-exchange with CMPXCHG8B, which is valid in 64-bit mode:
 * it compares EDX:EAX with m64 and, if equal, stores ECX:EBX, else loads m64
 * into EDX:EAX (SDM Vol. 2A "CMPXCHG8B/CMPXCHG16B").  No alignment is
 * required, but an 8-aligned operand never splits a cache line.
 */
static inline bool atomic_cmpxchg64_8b(uint64_t *p, uint64_t *old, uint64_t new)
{
	bool ok;
	uint32_t lo = (uint32_t)*old, hi = (uint32_t)(*old >> 32);

	__asm__ __volatile__("lock cmpxchg8b %1"
			     : "=@ccz"(ok), "+m"(*p), "+a"(lo), "+d"(hi)
			     : "b"((uint32_t) new), "c"((uint32_t)(new >> 32))
			     : "memory");
	*old = ((uint64_t)hi << 32) | lo;
	return ok;
}

static inline bool atomic_cmpxchg128(atomic_u128 *p, atomic_u128 *old, atomic_u128 new)
{
	return atomic_cmpxchg16b_insn(p, old, new);
}

#else /* LIB_ATOMIC_BUILTINS */

static inline uint8_t atomic_load8(const uint8_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void atomic_store8(uint8_t *p, uint8_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline uint16_t atomic_load16(const uint16_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline uint32_t atomic_load32(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline uint64_t atomic_load64(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void atomic_store16(uint16_t *p, uint16_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline void atomic_store32(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline void atomic_store64(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline uint64_t atomic_load64_relaxed(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline void atomic_store64_relaxed(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static inline uint8_t atomic_load8_relaxed(const uint8_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline uint32_t atomic_load32_relaxed(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline void atomic_store32_relaxed(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static inline uint8_t atomic_xchg8(uint8_t *p, uint8_t v)
{
	return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
}

static inline uint16_t atomic_xchg16(uint16_t *p, uint16_t v)
{
	return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
}

static inline uint32_t atomic_xchg32(uint32_t *p, uint32_t v)
{
	return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
}

static inline uint64_t atomic_xchg64(uint64_t *p, uint64_t v)
{
	return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
}

#define atomic_load_ptr(pp)	__atomic_load_n((pp), __ATOMIC_ACQUIRE)
#define atomic_store_ptr(pp, v) __atomic_store_n((pp), (v), __ATOMIC_RELEASE)
#define atomic_xchg_ptr(pp, v)	__atomic_exchange_n((pp), (v), __ATOMIC_SEQ_CST)

static inline uint16_t atomic_xadd16(uint16_t *p, uint16_t v)
{
	return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}

static inline uint32_t atomic_xadd32(uint32_t *p, uint32_t v)
{
	return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}

static inline uint64_t atomic_xadd64(uint64_t *p, uint64_t v)
{
	return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}

static inline bool atomic_test_and_set_bit32(uint32_t *p, unsigned bit)
{
	return (__atomic_fetch_or(p, 1u << bit, __ATOMIC_SEQ_CST) >> bit) & 1u;
}

static inline bool atomic_cmpxchg8(uint8_t *p, uint8_t *old, uint8_t new)
{
	return __atomic_compare_exchange_n(p, old, new, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static inline bool atomic_cmpxchg16(uint16_t *p, uint16_t *old, uint16_t new)
{
	return __atomic_compare_exchange_n(p, old, new, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static inline bool atomic_cmpxchg32(uint32_t *p, uint32_t *old, uint32_t new)
{
	return __atomic_compare_exchange_n(p, old, new, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static inline bool atomic_cmpxchg64_q(uint64_t *p, uint64_t *old, uint64_t new)
{
	return __atomic_compare_exchange_n(p, old, new, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/* The builtins have no way to ask for CMPXCHG8B; both 64-bit forms are the same here. */
static inline bool atomic_cmpxchg64_8b(uint64_t *p, uint64_t *old, uint64_t new)
{
	return __atomic_compare_exchange_n(p, old, new, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

#ifdef __SANITIZE_THREAD__
/* TSan's hooks for synchronisation it cannot see (sanitizer/tsan_interface.h). */
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#endif

/*
 * The exception: TSan runs a 16-byte __atomic compare-exchange under an
 * internal mutex and writes the 16 bytes back with plain stores, so a
 * narrower atomic on the same bytes (the spinlock's XADD inside a lockref16)
 * can be lost in between.  So this is the real instruction, and under TSan
 * its ordering is announced by hand: a release before, an acquire after.
 */
static inline bool atomic_cmpxchg128(atomic_u128 *p, atomic_u128 *old, atomic_u128 new)
{
	bool ok;

#ifdef __SANITIZE_THREAD__
	__tsan_release(p);
#endif
	ok = atomic_cmpxchg16b_insn(p, old, new);
#ifdef __SANITIZE_THREAD__
	__tsan_acquire(p);
#endif
	return ok;
}

#endif /* LIB_ATOMIC_BUILTINS */

#endif /* LIB_ATOMIC_H */
