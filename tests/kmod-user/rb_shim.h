/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tests/kmod-user/rb_shim.h - just enough of the kernel for kmod/rb_*.c to build
 * and run in user space, where one thread plays one CPU and signal handlers play
 * its interrupts (SIGALRM = hardirq, SIGPROF = NMI, SIGUSR1 = the reader's IPI).
 *
 * local_t is a long updated with __atomic builtins: lock-free, so safe between a
 * thread and its own signal handlers, which is all the kernel's local_t
 * promises (one CPU, interrupts). Reads and writes of plain fields use volatile
 * accesses as READ_ONCE/WRITE_ONCE do.
 */
#ifndef RB_SHIM_H
#define RB_SHIM_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/types.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

#define PAGE_SIZE		4096UL
#define BIT(n)			(1UL << (n))
#define GFP_KERNEL		0
#define __GFP_ZERO		0
#define __GFP_RETRY_MAYFAIL	0
#define __GFP_NOWARN		0
#ifndef __always_inline
#define __always_inline		inline __attribute__((__always_inline__))
#endif
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define barrier()		__asm__ __volatile__("" ::: "memory")
#define smp_wmb()		__atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_mb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_load_acquire(p)	__atomic_load_n(p, __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n(p, v, __ATOMIC_RELEASE)
/* a writer waiting for a reader on another "CPU" (a thread); a test may step in */
extern void (*rb_shim_relax)(void);
#define cpu_relax()							\
	do {								\
		if (rb_shim_relax)					\
			rb_shim_relax();				\
		else							\
			sched_yield();					\
	} while (0)
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
#define container_of(p, type, member) \
	((type *)((char *)(p) - offsetof(type, member)))

extern int rb_shim_warnings;
#define WARN_ONCE(cond, fmt, ...)					\
	({								\
		bool __w = !!(cond);					\
		if (__w) {						\
			__atomic_add_fetch(&rb_shim_warnings, 1, __ATOMIC_RELAXED); \
			fprintf(stderr, fmt, ##__VA_ARGS__);		\
		}							\
		__w;							\
	})

typedef struct { long a; } local_t;
typedef struct { int a; } atomic_t;

static inline long local_read(local_t *l)
{
	return __atomic_load_n(&l->a, __ATOMIC_RELAXED);
}

static inline void local_set(local_t *l, long v)
{
	__atomic_store_n(&l->a, v, __ATOMIC_RELAXED);
}

static inline long local_add_return(long v, local_t *l)
{
	return __atomic_add_fetch(&l->a, v, __ATOMIC_SEQ_CST);
}

#define local_inc_return(l)	local_add_return(1, l)
#define local_inc(l)		((void)local_add_return(1, l))
#define local_dec(l)		((void)local_add_return(-1, l))
#define local_add(v, l)		((void)local_add_return((v), l))
#define local_sub(v, l)		((void)local_add_return(-(long)(v), l))

static inline long local_cmpxchg(local_t *l, long old, long new)
{
	__atomic_compare_exchange_n(&l->a, &old, new, false, __ATOMIC_SEQ_CST,
				    __ATOMIC_SEQ_CST);
	return old;
}

#define atomic_read(v)		__atomic_load_n(&(v)->a, __ATOMIC_RELAXED)
#define atomic_inc(v)		((void)__atomic_add_fetch(&(v)->a, 1, __ATOMIC_SEQ_CST))
#define atomic_dec(v)		((void)__atomic_sub_fetch(&(v)->a, 1, __ATOMIC_SEQ_CST))

struct mutex { pthread_mutex_t m; };
#define mutex_init(x)		pthread_mutex_init(&(x)->m, NULL)
#define mutex_lock(x)		pthread_mutex_lock(&(x)->m)
#define mutex_unlock(x)		pthread_mutex_unlock(&(x)->m)

typedef struct { int unused; } wait_queue_head_t;
#define init_waitqueue_head(w)		((void)(w))
#define wake_up_interruptible_all(w)	((void)(w))

struct irq_work { void (*fn)(struct irq_work *w); };
#define init_irq_work(w, f)	((w)->fn = (f))
#define irq_work_queue(w)	((void)(w))
#define irq_work_sync(w)	((void)(w))

static inline u64 rb_shim_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* the clock a writer's wait for a remote swap is bounded by; a test may step in */
extern u64 (*rb_shim_wait_clock)(void);
#define rb_wait_clock()							\
	(rb_shim_wait_clock ? rb_shim_wait_clock() : rb_shim_ns(CLOCK_MONOTONIC))
#define trace_clock_local()		rb_shim_ns(CLOCK_MONOTONIC)
#define trace_clock_global()		rb_shim_ns(CLOCK_MONOTONIC)
#define ktime_get_mono_fast_ns()	rb_shim_ns(CLOCK_MONOTONIC)
#define ktime_get_boot_fast_ns()	rb_shim_ns(CLOCK_BOOTTIME)

/* memory: a "struct page" is its own page-aligned address */
struct page;
#define cpu_to_node(cpu)		((void)(cpu), 0)
#define kvcalloc(n, sz, gfp)		calloc(n, sz)
#define kzalloc_node(sz, gfp, node)	calloc(1, sz)
#define kfree(p)			free(p)
#define kvfree(p)			free(p)
#define page_address(pg)		((void *)(pg))
#define free_page(addr)			free((void *)(addr))

static inline struct page *alloc_pages_node(int node, int gfp, int order)
{
	void *p = NULL;

	if (posix_memalign(&p, PAGE_SIZE, PAGE_SIZE))
		return NULL;
	memset(p, 0, PAGE_SIZE);
	return (struct page *)p;
}

static inline int fls(unsigned int x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}

/* the writer's context level: the test's handlers set it (0 task, 2 "irq", 3 "NMI") */
extern __thread unsigned int rb_shim_ctx;
#define RB_CTX_LEVEL()		rb_shim_ctx

/* a test may interrupt the ring buffer's slow path at each RB_TEST_POINT() */
extern void (*rb_shim_point)(void *buf);
#define RB_TEST_POINT(buf)						\
	do {								\
		if (rb_shim_point)					\
			rb_shim_point(buf);				\
	} while (0)

#endif /* RB_SHIM_H */
