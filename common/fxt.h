/* SPDX-License-Identifier: GPL-2.0 */
/*
 * common/fxt.h - Fuchsia trace format (FXT) constants and header-word builders.
 *
 * Bit layouts follow the Fuchsia trace format specification
 * (docs/development/tracing/trace-format, "Record Types" and "Argument types") as Perfetto's
 * importer reads them (src/trace_processor/importers/fuchsia/). Every builder sets only the
 * fields it is given; reserved bits stay zero. Sizes are in 64-bit words, header included.
 * Header only, no libc: usable by the kernel module and by user space.
 */
#ifndef FTRING_FXT_H
#define FTRING_FXT_H

#include <linux/types.h>

/* Little-endian magic record: bytes 10 00 04 46 78 54 16 00. */
#define FXT_MAGIC		0x0016547846040010ULL

#define FXT_MAX_RECORD_WORDS	4095	/* 12-bit size field */
#define FXT_MAX_ARGS		15	/* 4-bit argument count */
#define FXT_MAX_STRING_INDEX	0x7fff
#define FXT_MAX_THREAD_INDEX	0xff
#define FXT_MAX_STRING_LEN	32000	/* the spec's conservative limit */
#define FXT_STRREF_INLINE	0x8000	/* string ref: bit 15 = inline, low 15 bits = length */

enum fxt_record_type {
	FXT_REC_METADATA	= 0,
	FXT_REC_INIT		= 1,
	FXT_REC_STRING		= 2,
	FXT_REC_THREAD		= 3,
	FXT_REC_EVENT		= 4,
	FXT_REC_BLOB		= 5,
	FXT_REC_USER_OBJ	= 6,
	FXT_REC_KERNEL_OBJ	= 7,
	FXT_REC_SCHED		= 8,
	FXT_REC_LOG		= 9,
	FXT_REC_PROFILER	= 10,
	FXT_REC_LARGE		= 15,
};

enum fxt_metadata_type {
	FXT_META_PROVIDER_INFO		= 1,
	FXT_META_PROVIDER_SECTION	= 2,
	FXT_META_PROVIDER_EVENT		= 3,
	FXT_META_TRACE_INFO		= 4,
};

enum fxt_event_type {
	FXT_EV_INSTANT		= 0,
	FXT_EV_COUNTER		= 1,
	FXT_EV_DURATION_BEGIN	= 2,
	FXT_EV_DURATION_END	= 3,
	FXT_EV_DURATION_COMPLETE = 4,
	FXT_EV_ASYNC_BEGIN	= 5,
	FXT_EV_ASYNC_INSTANT	= 6,
	FXT_EV_ASYNC_END	= 7,
	FXT_EV_FLOW_BEGIN	= 8,
	FXT_EV_FLOW_STEP	= 9,
	FXT_EV_FLOW_END		= 10,
	FXT_EV_MAX		= 10,
};

enum fxt_arg_type {
	FXT_ARG_NULL	= 0,
	FXT_ARG_I32	= 1,
	FXT_ARG_U32	= 2,
	FXT_ARG_I64	= 3,
	FXT_ARG_U64	= 4,
	FXT_ARG_DOUBLE	= 5,
	FXT_ARG_STRING	= 6,
	FXT_ARG_POINTER	= 7,
	FXT_ARG_KOID	= 8,
	FXT_ARG_BOOL	= 9,
	FXT_ARG_BLOB	= 10,
};

enum fxt_sched_type {
	FXT_SCHED_LEGACY_SWITCH	= 0,	/* never written: see docs/fxt-perfetto.md 1.4 */
	FXT_SCHED_SWITCH	= 1,
	FXT_SCHED_WAKEUP	= 2,
};

/* Outgoing thread state of a context switch (ZX_THREAD_STATE_*). */
enum fxt_thread_state {
	FXT_TS_NEW		= 0,
	FXT_TS_RUNNING		= 1,	/* Perfetto shows "R": preempted, still runnable */
	FXT_TS_SUSPENDED	= 2,
	FXT_TS_BLOCKED		= 3,
	FXT_TS_DYING		= 4,
	FXT_TS_DEAD		= 5,
};

enum fxt_koid_type {
	FXT_OBJ_PROCESS	= 1,	/* ZX_OBJ_TYPE_PROCESS */
	FXT_OBJ_THREAD	= 2,	/* ZX_OBJ_TYPE_THREAD */
};

/* Weight that marks the idle thread in context switch and wakeup records. */
#define FXT_WEIGHT_IDLE		((__s32)0x80000000)

static inline __u64 fxt_field(__u64 v, unsigned int lo, unsigned int bits)
{
	return (v & ((1ULL << bits) - 1)) << lo;
}

static inline __u64 fxt_get(__u64 w, unsigned int lo, unsigned int bits)
{
	return (w >> lo) & ((1ULL << bits) - 1);
}

/* Words needed by a byte stream padded with zeros to 8 bytes. */
static inline unsigned int fxt_stream_words(unsigned int len)
{
	return (len + 7) / 8;
}

static inline __u16 fxt_strref_inline(unsigned int len)
{
	return (__u16)(FXT_STRREF_INLINE | (len & 0x7fff));
}

static inline int fxt_strref_is_inline(__u16 ref)
{
	return !!(ref & FXT_STRREF_INLINE);
}

/* Words that an inline string ref adds to its record (0 for empty and indexed refs). */
static inline unsigned int fxt_strref_words(__u16 ref)
{
	return fxt_strref_is_inline(ref) ? fxt_stream_words(ref & 0x7fff) : 0;
}

static inline __u64 fxt_rec_hdr(unsigned int type, unsigned int words)
{
	return fxt_field(type, 0, 4) | fxt_field(words, 4, 12);
}

static inline unsigned int fxt_hdr_type(__u64 w)
{
	return (unsigned int)fxt_get(w, 0, 4);
}

static inline unsigned int fxt_hdr_words(__u64 w)
{
	return (unsigned int)fxt_get(w, 4, 12);
}

static inline __u64 fxt_provider_info_hdr(__u32 id, unsigned int namelen)
{
	return fxt_rec_hdr(FXT_REC_METADATA, 1 + fxt_stream_words(namelen)) |
	       fxt_field(FXT_META_PROVIDER_INFO, 16, 4) | fxt_field(id, 20, 32) |
	       fxt_field(namelen, 52, 8);
}

static inline __u64 fxt_provider_section_hdr(__u32 id)
{
	return fxt_rec_hdr(FXT_REC_METADATA, 1) | fxt_field(FXT_META_PROVIDER_SECTION, 16, 4) |
	       fxt_field(id, 20, 32);
}

/* Initialization record: this header, then one word of ticks per second. */
static inline __u64 fxt_init_hdr(void)
{
	return fxt_rec_hdr(FXT_REC_INIT, 2);
}

static inline __u64 fxt_string_hdr(unsigned int index, unsigned int len)
{
	return fxt_rec_hdr(FXT_REC_STRING, 1 + fxt_stream_words(len)) |
	       fxt_field(index, 16, 15) | fxt_field(len, 32, 15);
}

/* Thread record: this header, then the process koid word and the thread koid word. */
static inline __u64 fxt_thread_hdr(unsigned int index)
{
	return fxt_rec_hdr(FXT_REC_THREAD, 3) | fxt_field(index, 16, 8);
}

static inline __u64 fxt_event_hdr(unsigned int words, unsigned int evtype, unsigned int nargs,
				  unsigned int thread_ref, __u16 category, __u16 name)
{
	return fxt_rec_hdr(FXT_REC_EVENT, words) | fxt_field(evtype, 16, 4) |
	       fxt_field(nargs, 20, 4) | fxt_field(thread_ref, 24, 8) |
	       fxt_field(category, 32, 16) | fxt_field(name, 48, 16);
}

static inline __u64 fxt_kobj_hdr(unsigned int words, unsigned int objtype, __u16 name,
				 unsigned int nargs)
{
	return fxt_rec_hdr(FXT_REC_KERNEL_OBJ, words) | fxt_field(objtype, 16, 8) |
	       fxt_field(name, 24, 16) | fxt_field(nargs, 40, 4);
}

/* Context switch (subtype 1): ts, outgoing tid, incoming tid, then the arguments. */
static inline __u64 fxt_cswitch_hdr(unsigned int words, unsigned int nargs, unsigned int cpu,
				    unsigned int out_state)
{
	return fxt_rec_hdr(FXT_REC_SCHED, words) | fxt_field(nargs, 16, 4) |
	       fxt_field(cpu, 20, 16) | fxt_field(out_state, 36, 4) |
	       fxt_field(FXT_SCHED_SWITCH, 60, 4);
}

/* Thread wakeup (subtype 2): ts, waking tid, then the arguments. */
static inline __u64 fxt_wakeup_hdr(unsigned int words, unsigned int nargs, unsigned int cpu)
{
	return fxt_rec_hdr(FXT_REC_SCHED, words) | fxt_field(nargs, 16, 4) |
	       fxt_field(cpu, 20, 16) | fxt_field(FXT_SCHED_WAKEUP, 60, 4);
}

/*
 * Argument header. @value32 fills bits [32..63] for i32/u32/bool/blob size; a string
 * argument puts its value ref in [32..47] (pass the ref as @value32).
 */
static inline __u64 fxt_arg_hdr(unsigned int type, unsigned int words, __u16 name,
				__u32 value32)
{
	return fxt_field(type, 0, 4) | fxt_field(words, 4, 12) | fxt_field(name, 16, 16) |
	       ((__u64)value32 << 32);
}

#endif /* FTRING_FXT_H */
