/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of qemu's TCG plugin API, version 1, that tests/bench/insn_profile.c uses.
 * qemu 7.2 (Debian 12) loads plugins but no Debian package ships qemu-plugin.h, so
 * these are declared here with the prototypes, types and values its documentation
 * gives (include/qemu/qemu-plugin.h in qemu's tree, docs/devel/tcg-plugins.rst).
 * The functions are the qemu binary's own, resolved when it loads the plugin.
 */
#ifndef QEMU_PLUGIN_V1_H
#define QEMU_PLUGIN_V1_H

#include <stddef.h>
#include <stdint.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_info_t;

/* enum qemu_plugin_op: the one inline operation of API version 1 */
#define QEMU_PLUGIN_INLINE_ADD_U64	0

struct qemu_plugin_insn;

/* enum qemu_plugin_cb_flags */
#define QEMU_PLUGIN_CB_NO_REGS		0

typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, int op,
					      void *ptr, uint64_t imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb, int flags,
					    void *userdata);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb,
				    void *userdata);

#endif /* QEMU_PLUGIN_V1_H */
