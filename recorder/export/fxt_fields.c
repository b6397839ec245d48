// SPDX-License-Identifier: GPL-2.0
/*
 * Reading an event's fields, checked against the record (everything comes from the
 * file), and sorting events into the kinds fxt_map.c turns into FXT. The event
 * formats are libtraceevent's; kinds are found by field names, since layouts differ
 * between kernels.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fxt.h"
#include "fxt_export_local.h"
#include "util/log.h"

/*
 * Where the bytes of field @f are in record @r: its place for a fixed field, what its
 * __data_loc / __rel_loc word says for a dynamic one. Everything comes from the file
 * (the record and the event format both), so all of it is checked against the record.
 * Return: the bytes (*@len of them), or NULL when they are not inside the record.
 */
const uint8_t *exp_field_bytes(const struct tep_format_field *f, const struct tep_record *r,
			       size_t *len)
{
	const uint8_t *d = r->data;
	uint64_t size = r->size > 0 ? (uint64_t)r->size : 0, at;
	uint32_t loc;

	*len = 0;
	if (!f || !d || f->offset < 0 || f->size < 0)
		return NULL;
	if (!(f->flags & TEP_FIELD_IS_DYNAMIC)) {
		if ((uint64_t)f->offset + (uint64_t)f->size > size)
			return NULL;
		*len = (size_t)f->size;
		return d + f->offset;
	}
	/* u32: offset in the low 16 bits, length in the high 16 (include/trace/stages) */
	if ((uint64_t)f->offset + 4 > size)
		return NULL;
	memcpy(&loc, d + f->offset, 4);
	at = loc & 0xffff;
	if (f->flags & TEP_FIELD_IS_RELATIVE)	/* __rel_loc: from the end of the word */
		at += (uint64_t)f->offset + 4;
	if (at + (loc >> 16) > size)
		return NULL;
	*len = loc >> 16;
	return d + at;
}

int64_t exp_num(struct tep_format_field *f, struct tep_record *r, int64_t dflt)
{
	const uint8_t *p;
	uint64_t v;
	size_t len;

	p = f && !(f->flags & TEP_FIELD_IS_DYNAMIC) ? exp_field_bytes(f, r, &len) : NULL;
	if (!p || (len != 1 && len != 2 && len != 4 && len != 8))
		return dflt;
	v = tep_read_number(f->event->tep, p, (int)len);
	/* sign-extend signed fields narrower than 64 bits */
	if ((f->flags & TEP_FIELD_IS_SIGNED) && len < 8) {
		unsigned int sh = 64 - 8 * (unsigned int)len;

		return (int64_t)(v << sh) >> sh;
	}
	return (int64_t)v;
}

/* Bytes of a string field: fixed char array, __data_loc or trailing char buf[]. */
const char *exp_str_field(struct tep_format_field *f, struct tep_record *r, size_t *len)
{
	const char *p;
	size_t max;

	*len = 0;
	if (f && !(f->flags & TEP_FIELD_IS_DYNAMIC) && !f->size) {
		/* char buf[]: the rest of the record */
		if (f->offset < 0 || f->offset >= r->size)
			return NULL;
		p = (const char *)r->data + f->offset;
		max = (size_t)(r->size - f->offset);
	} else {
		p = (const char *)exp_field_bytes(f, r, &max);
	}
	if (!p)
		return NULL;
	*len = strnlen(p, max);
	return p;
}

/* The record's event type and writer, from its common fields; -1 when unreadable. */
int exp_rec_type(struct exporter *x, struct tep_record *r)
{
	return (int)exp_num(x->f_type, r, -1);
}

int exp_rec_pid(struct exporter *x, struct tep_record *r)
{
	return (int)exp_num(x->f_pid, r, 0);
}

/* Field slots per kind, found by name (layouts differ between kernels). */
static void bind_fields(struct evinfo *e, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		e->f[i] = names[i] ? tep_find_field(e->ev, names[i]) : NULL;
}

static struct tep_format_field *first_string_field(struct tep_event *ev)
{
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
		if ((f->flags & (TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC)) ||
		    ((f->flags & TEP_FIELD_IS_ARRAY) && strstr(f->type, "char")))
			return f;
	return NULL;
}

static enum kind kind_of(struct evinfo *e)
{
	static const char *const sw[] = { "prev_pid", "prev_state", "next_pid", "prev_prio",
					  "next_prio", "prev_comm", "next_comm" };
	struct tep_event *ev = e->ev;
	const char *sys = ev->system, *n = ev->name;

	if (!strcmp(n, "sched_switch") && !strcmp(sys, "sched")) {
		bind_fields(e, sw, 7);
		return e->f[F_PREV_PID] && e->f[F_NEXT_PID] ? K_SWITCH : K_OTHER;
	}
	if ((!strcmp(n, "sched_wakeup") || !strcmp(n, "sched_wakeup_new")) &&
	    !strcmp(sys, "sched")) {
		static const char *const wk[] = { "pid", "prio", "target_cpu", "comm" };

		bind_fields(e, wk, 4);
		return e->f[0] ? K_WAKEUP : K_OTHER;
	}
	if (!strcmp(sys, "irq")) {
		static const char *const irq[] = { "irq", "name", "ret" };
		static const char *const sirq[] = { "vec" };

		if (!strcmp(n, "irq_handler_entry") || !strcmp(n, "irq_handler_exit")) {
			bind_fields(e, irq, 3);
			return n[12] == 'e' && n[13] == 'n' ? K_IRQ_ENTRY : K_IRQ_EXIT;
		}
		if (!strcmp(n, "softirq_entry") || !strcmp(n, "softirq_exit")) {
			bind_fields(e, sirq, 1);
			return n[8] == 'e' && n[9] == 'n' ? K_SOFTIRQ_ENTRY : K_SOFTIRQ_EXIT;
		}
	}
	if (!strcmp(sys, "raw_syscalls")) {
		static const char *const sc[] = { "id", "ret" };

		bind_fields(e, sc, 2);
		if (!strcmp(n, "sys_enter"))
			return K_SYS_ENTER;
		if (!strcmp(n, "sys_exit"))
			return K_SYS_EXIT;
	}
	if (!strcmp(sys, "syscalls") && (!strncmp(n, "sys_enter_", 10) ||
					 !strncmp(n, "sys_exit_", 9))) {
		static const char *const sc[] = { "__syscall_nr", "ret" };

		bind_fields(e, sc, 2);
		e->name = strdup(n + (n[4] == 'e' && n[5] == 'n' ? 10 : 9));
		return n[4] == 'e' && n[5] == 'n' ? K_SYSCALL_ENTER : K_SYSCALL_EXIT;
	}
	if ((!strcmp(sys, "ftrace") && !strcmp(n, "print")) ||
	    (!strcmp(sys, "ftring") && !strcmp(n, "marker"))) {
		e->f[0] = tep_find_field(ev, "buf");
		if (!e->f[0])
			e->f[0] = first_string_field(ev);
		return e->f[0] ? K_MARKER : K_OTHER;
	}
	if (!strcmp(sys, "task") && !strcmp(n, "task_newtask")) {
		static const char *const nt[] = { "pid", "clone_flags", "comm" };

		bind_fields(e, nt, 3);
		return e->f[0] && e->f[1] ? K_NEWTASK : K_OTHER;
	}
	if (!strcmp(sys, "task") && !strcmp(n, "task_rename")) {
		static const char *const rn[] = { "pid", "newcomm" };

		bind_fields(e, rn, 2);
		return K_RENAME;
	}
	if (!strcmp(sys, "sched") && !strcmp(n, "sched_process_fork")) {
		static const char *const fk[] = { "child_pid", "child_comm" };

		bind_fields(e, fk, 2);
		return e->f[0] ? K_FORK : K_OTHER;
	}
	/*
	 * FXT written by user space through the module (/dev/ftring/fxt): the event
	 * ftring/fxt of common/ftring_events.h, whose __data_loc byte array "data" holds
	 * whole FXT event records the module checked with common/fxt_validate.h.
	 */
	if (!strcmp(sys, "ftring") && !strcmp(n, "fxt")) {
		e->f[0] = tep_find_field(ev, "data");
		return e->f[0] ? K_FXT : K_SKIP;
	}
	return K_OTHER;
}

struct evinfo *exp_evinfo(struct exporter *x, int id)
{
	struct evinfo *e;

	if (id < 0 || id > x->max_id)
		return NULL;
	if (x->evs[id])
		return x->evs[id];
	e = calloc(1, sizeof(*e));
	if (!e) {
		x->failed = -ENOMEM;
		return NULL;
	}
	e->ev = tep_find_event(x->tep, id);
	e->kind = e->ev ? kind_of(e) : K_SKIP;
	x->evs[id] = e;
	return e;
}

/*
 * Letters of sched_switch's prev_state, read from the __print_flags() table of the event's
 * own print fmt: the bit values moved between kernel versions (TASK_REPORT).
 */
static int find_state_flags(struct exporter *x, struct tep_print_arg *a)
{
	for (; a; a = a->next) {
		switch (a->type) {
		case TEP_PRINT_FLAGS:
			for (struct tep_print_flag_sym *s = a->flags.flags;
			     s && x->nstate_flags < 16; s = s->next) {
				x->state_flags[x->nstate_flags].value = strtoull(s->value, NULL, 0);
				x->state_flags[x->nstate_flags++].letter = s->str[0];
			}
			return x->nstate_flags > 0;
		case TEP_PRINT_OP:
			if (find_state_flags(x, a->op.left) || find_state_flags(x, a->op.right))
				return 1;
			break;
		case TEP_PRINT_TYPE:
			if (find_state_flags(x, a->typecast.item))
				return 1;
			break;
		default:
			break;
		}
	}
	return 0;
}

void exp_load_state_flags(struct exporter *x, struct tep_event *ev)
{
	static const char letters[] = "SDTtXZPI";	/* Linux >= 4.14 TASK_REPORT order */

	if (ev && find_state_flags(x, ev->print_fmt.args))
		return;
	x->nstate_flags = 0;
	for (int i = 0; letters[i]; i++) {
		x->state_flags[i].value = 1ULL << i;
		x->state_flags[i].letter = letters[i];
		x->nstate_flags++;
	}
}

unsigned int exp_fxt_state(struct exporter *x, int64_t prev_state)
{
	for (int i = 0; i < x->nstate_flags; i++) {
		if (!(x->state_flags[i].value & (uint64_t)prev_state))
			continue;
		switch (x->state_flags[i].letter) {
		case 'T': case 't':
			return FXT_TS_SUSPENDED;
		case 'Z':
			return FXT_TS_DYING;
		case 'X': case 'x':
			return FXT_TS_DEAD;
		case 'W':
			return FXT_TS_RUNNING;
		default:	/* S, D (FXT has no uninterruptible sleep), P, I, K */
			return FXT_TS_BLOCKED;
		}
	}
	return FXT_TS_RUNNING;	/* "R" / "R+": preempted */
}

int exp_map_bind(struct exporter *x)
{
	struct tep_event *any = NULL;

	for (int i = 0; i < tep_get_events_count(x->tep) && !any; i++)
		any = tep_get_event(x->tep, i);
	/* common_* fields are the same in every event: the first one's serve for all */
	x->f_type = any ? tep_find_common_field(any, "common_type") : NULL;
	x->f_pid = any ? tep_find_common_field(any, "common_pid") : NULL;
	if (!x->f_type) {
		log_err("export: the file's event formats have no common_type field\n");
		return -EINVAL;
	}
	return 0;
}

int exp_map_init(struct exporter *x)
{
	x->max_id = 0;
	for (int i = 0; i < tep_get_events_count(x->tep); i++) {
		struct tep_event *ev = tep_get_event(x->tep, i);

		if (ev && ev->id > x->max_id)
			x->max_id = ev->id;
	}
	if (exp_map_bind(x))
		return -EINVAL;
	x->evs = calloc((size_t)x->max_id + 1, sizeof(*x->evs));
	x->cpu = calloc((size_t)x->ncpus, sizeof(*x->cpu));
	if (!x->evs || !x->cpu) {
		log_err("export: out of memory\n");
		return -ENOMEM;
	}
	for (int cpu = 0; cpu < x->ncpus; cpu++)
		x->cpu[cpu].curr = -1;
	return 0;
}
