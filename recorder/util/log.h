/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Levelled logging to stderr (the journal under systemd picks the <N> prefix up).
 * Log once, where the decision is made; the page path never logs.
 */
#ifndef REC_LOG_H
#define REC_LOG_H

enum log_level { LOG_LVL_ERR = 3, LOG_LVL_WARN = 4, LOG_LVL_INFO = 6, LOG_LVL_DEBUG = 7 };

extern int log_max_level;	/* messages above it are dropped; default INFO */
extern int log_journal_prefix;	/* print "<N>" prefixes (set when under systemd) */

void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The first error logged since log_mark_errors(), or "" (the reason a reply names,
 * as it was logged where the decision was made).
 */
void log_mark_errors(void);
const char *log_first_error(void);

/* An error a helper thread logged for this one (util/bg_call.c): kept as if logged here. */
void log_keep_error(const char *msg);

#define log_err(...)	log_msg(LOG_LVL_ERR, __VA_ARGS__)
#define log_warn(...)	log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define log_info(...)	log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...)	log_msg(LOG_LVL_DEBUG, __VA_ARGS__)

#endif /* REC_LOG_H */
