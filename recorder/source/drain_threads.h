/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a source's rings over threads. One thread taking every CPU's pages cannot
 * keep up with a flood on several CPUs: on the host's 2 CPUs, two writers of 200000
 * markers each into 64 KiB rings lost up to 3810 events read by the page path alone
 * and none with a reader per CPU; with 16 vCPUs flooding, recorderd lost ~40% where
 * trace-cmd's reader per CPU lost none (tests/bench/vm_recorder --smp 16 --flood).
 * The drain threads take over what costs per page in the kernel (GET_READER, splice,
 * the copy out of the ring), so the rings empty at the pace of every CPU, while the
 * caller's one page path goes on moving whole pages from memory to the writer.
 *
 *	s = drain_threads_wrap(inner, threads, &err);	s reads inner over threads
 *	... use s as any source (source.h); source_close(s) closes inner too
 *
 * The CPUs with a wake-up fd are dealt to the threads in turn; a thread with one CPU
 * of a SOURCE_SWAP_ON_CPU source (the module) runs on it: from elsewhere each reader
 * page swap is an IPI, waiting for a busy CPU. A thread waits on its CPUs' fds and
 * moves whole pages from the ring into a bounded queue per CPU. The wrapped source is
 * inner's in all but reading: read_pages() takes the queued pages in order and, with
 * @flush, then what the ring holds, under the CPU's lock the thread reads it with too
 * (so nothing comes out of order); poll_fd() is an eventfd per CPU the thread
 * signals after each batch it queued; a CPU without a wake-up fd is read by the
 * caller directly, as before. A full queue is left alone until the caller takes from it: the
 * ring then fills and the kernel counts what it drops, so memory stays bounded
 * (DRAIN_QUEUE_BYTES in all).
 */
#ifndef REC_DRAIN_THREADS_H
#define REC_DRAIN_THREADS_H

#include "source.h"

/*
 * @inner read by @threads threads (1..DRAIN_THREADS_MAX). On success @inner belongs to
 * the returned source; on failure (NULL, *@err = -errno) it is still the caller's.
 */
struct source *drain_threads_wrap(struct source *inner, unsigned int threads, int *err);

#define DRAIN_THREADS_MAX	64

/*
 * The threads for @ncpus CPUs when none were asked for: one per CPU, as many as
 * DRAIN_THREADS_MAX, from DRAIN_THREADS_MIN_CPUS up. Below, the page path reads the
 * rings itself: on the host's 2 CPUs, threads lost nothing where it lost up to 3810
 * of 400000 markers now and then, but took 20-60% more recorder CPU under a flood
 * (2 ms polls, a wake-up and a copy more per batch); a small machine keeps the cheap
 * path (--drain-threads 2 asks for them).
 */
#define DRAIN_THREADS_MIN_CPUS	4
unsigned int drain_threads_auto(int ncpus);

#endif /* REC_DRAIN_THREADS_H */
