/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Boot records (boot_record.c): the metadata of a boot whose rings may outlive it,
 * kept under STATE_DIR/boots/ by boot id.
 */
#ifndef REC_BOOT_RECORD_H
#define REC_BOOT_RECORD_H

#include <stdint.h>

#include "format/meta.h"

/* Where records go; RECORDERD_STATE_DIR overrides it. */
#define BOOT_STATE_DIR	"/var/lib/recorderd"

const char *boot_state_dir(void);

/* This boot's id (/proc/sys/kernel/random/boot_id). 0 or -errno. */
int boot_id_current(uint8_t id[16]);

/* Saves @m as the record of boot @id (replacing one of that id). 0 or -errno. */
int boot_record_save(const struct trace_meta *m, const uint8_t id[16]);

/* Reads the record of boot @id into @m (meta_free() it). 0, -ENOENT, or -errno. */
int boot_record_load(const uint8_t id[16], struct trace_meta *m);

#endif /* REC_BOOT_RECORD_H */
