/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tests/lib/fxt_decode.h - strict FXT reader for tests.
 *
 * Walks an FXT archive record by record and refuses anything a careful reader could
 * misread: a record size of 0 or past the end, non-zero reserved bits or padding, string
 * or thread refs to indexes not defined earlier in the file, argument sizes that do not
 * match their type, unknown record/event/argument types. With FXT_DEC_OURS it also holds
 * the file to what our exporter promises Perfetto (docs/fxt-perfetto.md): exact record
 * sizes, no legacy/log/large records, int32 weights and koid waker/process arguments,
 * events and scheduling records in timestamp order, kernel objects before any event.
 */
#ifndef TEST_FXT_DECODE_H
#define TEST_FXT_DECODE_H

#include <stddef.h>
#include <stdint.h>

#define FXT_DEC_OURS	1	/* the exporter's extra promises, see above */

struct fxt_dec_arg {
	unsigned int	type;
	const char	*name;
	uint64_t	u;		/* integer, pointer, koid, bool value (sign-extended i32) */
	const char	*str;		/* string value (NUL-terminated copy) */
};

struct fxt_dec_rec {
	size_t		offset;		/* bytes from the start of the file */
	unsigned int	words;
	unsigned int	type;		/* enum fxt_record_type */
	unsigned int	subtype;	/* metadata/event/sched/kernel-object type */
	uint64_t	ts;
	uint64_t	pid, tid;	/* event thread; wakeup: tid */
	uint64_t	out_tid, in_tid;
	unsigned int	cpu, state;
	uint64_t	koid;		/* kernel object; string/thread record: index */
	uint64_t	extra;		/* counter id, end time, correlation id; init: tick rate */
	const char	*category, *name;	/* events; kernel object name; string value */
	unsigned int	nargs;
	struct fxt_dec_arg args[15];
};

struct fxt_dec_summary {
	uint64_t	records;
	uint64_t	by_type[16];
	uint64_t	events[11];	/* by event type */
	uint64_t	sched[3];	/* by scheduling subtype */
	uint64_t	kobj_process, kobj_thread;
	uint64_t	ticks_per_second;
};

/* Return non-zero from the callback to stop the walk (fxt_decode returns that value). */
typedef int (*fxt_dec_cb)(const struct fxt_dec_rec *r, void *ctx);

int fxt_decode(const void *buf, size_t len, unsigned int flags, fxt_dec_cb cb, void *ctx,
	       struct fxt_dec_summary *sum, char *err, size_t errlen);
int fxt_decode_file(const char *path, unsigned int flags, fxt_dec_cb cb, void *ctx,
		    struct fxt_dec_summary *sum, char *err, size_t errlen);

/* Value of the argument called @name, or NULL. */
const struct fxt_dec_arg *fxt_dec_arg(const struct fxt_dec_rec *r, const char *name);

#endif /* TEST_FXT_DECODE_H */
