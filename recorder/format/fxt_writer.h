/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recorder/format/fxt_writer.h - buffered FXT record writer with string and thread tables.
 *
 * The writer owns the string table (indexes 1..32767) and the thread table (1..255) of
 * the one provider it writes. Interning a string or a thread writes its table record
 * immediately, so a table entry always precedes its first use in file order. When a table
 * is full the least recently used entry not referenced by the record being built is
 * replaced (second-chance clock), and a new table record redefines the index.
 *
 * Build a record as: fxtw_args() (resets the argument list and starts a new record),
 * fxtw_arg_*() for each argument, then one of fxtw_event()/fxtw_cswitch()/fxtw_wakeup()/
 * fxtw_kobj(). Errors (write failures, oversize records) are sticky: fxtw_finish()
 * reports the first one.
 */
#ifndef REC_FXT_WRITER_H
#define REC_FXT_WRITER_H

#include <stddef.h>
#include <stdint.h>

struct fxtw;

struct fxtw *fxtw_new(int fd);
int fxtw_finish(struct fxtw *w);
void fxtw_free(struct fxtw *w);
void fxtw_set_table_limits(struct fxtw *w, unsigned int max_strings, unsigned int max_threads);
uint64_t fxtw_bytes(const struct fxtw *w);
int fxtw_error(const struct fxtw *w);

/* Raw, already encoded records (magic, init, provider info, validated pass-through). */
void fxtw_raw(struct fxtw *w, const void *buf, size_t len);
void fxtw_magic(struct fxtw *w);
void fxtw_provider_info(struct fxtw *w, uint32_t id, const char *name);
void fxtw_init(struct fxtw *w, uint64_t ticks_per_second);

uint16_t fxtw_string(struct fxtw *w, const char *s, size_t len);
uint16_t fxtw_cstring(struct fxtw *w, const char *s);

void fxtw_args(struct fxtw *w);
void fxtw_arg_i32(struct fxtw *w, const char *name, int32_t v);
void fxtw_arg_u32(struct fxtw *w, const char *name, uint32_t v);
void fxtw_arg_i64(struct fxtw *w, const char *name, int64_t v);
void fxtw_arg_u64(struct fxtw *w, const char *name, uint64_t v);
void fxtw_arg_koid(struct fxtw *w, const char *name, uint64_t koid);
void fxtw_arg_bool(struct fxtw *w, const char *name, int v);
/* String value written inline (never interned): for unique text such as markers. */
void fxtw_arg_str(struct fxtw *w, const char *name, const char *s, size_t len);

/* @extra is the type-specific word (counter id, end time, correlation id) when @has_extra. */
void fxtw_event(struct fxtw *w, unsigned int evtype, uint64_t ts, uint64_t pid, uint64_t tid,
		const char *category, const char *name, int has_extra, uint64_t extra);
void fxtw_cswitch(struct fxtw *w, uint64_t ts, unsigned int cpu, unsigned int out_state,
		  uint64_t out_tid, uint64_t in_tid);
void fxtw_wakeup(struct fxtw *w, uint64_t ts, unsigned int cpu, uint64_t tid);
/* Kernel object with an inline name (names are written once, at the start of a file). */
void fxtw_kobj(struct fxtw *w, unsigned int objtype, uint64_t koid, const char *name);

#endif /* REC_FXT_WRITER_H */
