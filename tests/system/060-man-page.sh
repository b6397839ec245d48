#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# doc/recorderd.8 against the binary: every command recorder/main.c dispatches is in
# `recorderd --help` and has a .SS section, and each command's options (the .TP tags
# of its section) are exactly those its `--help` lists, long and short. -h/--help,
# which every command takes, is left out of the comparison. The CONFIGURATION section
# names exactly the keys of recorder/daemon/config.c. Needs no root.
source "$(dirname "$0")/../lib/tap.sh"

MAN=${MAN_PAGE:-$TOP/doc/recorderd.8}
MAIN_C=$TOP/recorder/main.c
CONFIG_C=$TOP/recorder/daemon/config.c

if [ ! -x "$RECORDERD" ]; then
	t_skip "man page" "no $RECORDERD (build first)"; t_done
fi

# Option names in the text on stdin: tokens that start with - or -- and a letter or
# digit, wherever brackets, commas, bars, '=' or blanks delimit them.
opt_tokens() {
	sed -E 's/[][(){},|=]/ /g' | tr -s ' \t' '\n\n' |
		grep -E '^--?[A-Za-z0-9][-A-Za-z0-9]*$' | grep -vxE -- '-h|--help' | sort -u
}

# A help text's options: those of its usage line and the names that open the lines of
# its option list (indented, starting with '-'; up to the first run of two blanks,
# where the description column starts).
help_opts() {
	awk '
		/^usage:/ { print; next }
		/^[ \t]+-/ { sub(/^[ \t]+/, ""); split($0, f, /  +/); print f[1] }
	' | opt_tokens
}

# The commands a top-level help lists: the indented first words after "commands:".
help_cmds() {
	awk '
		/^commands:/ { on = 1; next }
		on && /^[ \t]*$/ { on = 0 }
		on && /^[ \t]+[a-z]/ { print $1 }
	' | sort -u
}

# roff text to plain text: escapes for dashes, fonts, spaces and quotes undone.
roff_plain() {
	sed -E -e 's/\\-/-/g' -e 's/\\f(\[[^]]*\]|\(..|.)//g' -e 's/\\(&|%|:)//g' \
		-e 's/\\ / /g' -e 's/\\\(.{2}//g' -e 's/"/ /g'
}

# Command names of the man page's .SS sections under COMMANDS (the title's first word;
# a leading "recorderd" is skipped).
man_cmds() {
	awk '
		/^\.SH/ { sec = $0; next }
		sec ~ /COMMANDS/ && /^\.SS/ { print }
	' "$MAN" | roff_plain |
		awk '{ w = $2; if (w == "recorderd") w = $3; print w }' | sort -u
}

# The options in the tags (.TP/.TQ next line, .IP first argument) of command $1's
# section of the man page.
man_opts() {
	awk -v want="$1" '
		/^\.SH/ { sec = $0; cmd = ""; next }
		/^\.SS/ {
			t = $0; gsub(/"/, " ", t); n = split(t, w, /[ \t]+/)
			cmd = (w[2] == "recorderd") ? w[3] : w[2]; next
		}
		sec !~ /COMMANDS/ || cmd != want { tag = 0; next }
		/^\.(TP|TQ)/ { tag = 1; next }
		/^\.IP/ { sub(/^\.IP[ \t]*/, ""); print; next }
		tag && /^\.\\"/ { next }
		tag { print; tag = 0 }
	' "$MAN" | roff_plain | sed -E 's/^\.[A-Za-z]+[ \t]*//' | opt_tokens
}

# The configuration keys the tags of the man page's CONFIGURATION section name: words
# of [a-z_] outside the parentheses that hold the defaults.
man_keys() {
	awk '
		/^\.SH/ { sec = $0; tag = 0; next }
		sec !~ /CONFIGURATION/ { next }
		/^\.(TP|TQ)/ { tag = 1; next }
		tag { print; tag = 0 }
	' "$MAN" | roff_plain | sed -E -e 's/^\.[A-Za-z]+[ \t]*//' -e 's/\([^)]*\)//g' |
		tr -s ', \t' '\n\n\n' | grep -xE '[a-z][a-z0-9_]*' | sort -u
}

# diff_lists NAME_A LIST_A NAME_B LIST_B: "in A, not in B: x y; in B, not in A: z; "
# for two sorted lists, nothing when they are equal.
diff_lists() {
	local a b
	a=$(comm -23 <(printf '%s\n' "$2") <(printf '%s\n' "$4") | grep . | tr '\n' ' ')
	b=$(comm -13 <(printf '%s\n' "$2") <(printf '%s\n' "$4") | grep . | tr '\n' ' ')
	[ -n "$a" ] && printf 'in %s, not in %s: %s; ' "$1" "$3" "$a"
	[ -n "$b" ] && printf 'in %s, not in %s: %s; ' "$3" "$1" "$b"
	return 0
}

if command -v groff >/dev/null; then
	warn=$(groff -man -ww -z "$MAN" 2>&1)
	if [ -z "$warn" ]; then t_ok "man page: groff -man -ww renders it without a warning"
	else t_fail "man page: groff -man -ww renders it without a warning" "$(head -n 3 <<<"$warn")"
	fi
else
	t_skip "man page: groff -man -ww renders it without a warning" "no groff"
fi

# The dispatch table: { "NAME", cmd_..., "help" } entries of recorder/main.c.
dispatched=$(sed -nE 's/^[ \t]*\{[ \t]*"([a-z][-a-z0-9]*)",[ \t]*cmd_[a-z_]+,.*/\1/p' "$MAIN_C" |
	sort -u)
declare -A help
top=$("$RECORDERD" --help 2>&1)
listed=$(help_cmds <<<"$top")
sections=$(man_cmds)

if [ -z "$dispatched" ] || [ -z "$listed" ] || [ -z "$sections" ]; then
	t_fail "commands: dispatched = listed by --help = man sections" \
		"a list came out empty: dispatched '$dispatched', --help '$listed', man '$sections'"
else
	why=$(diff_lists "recorder/main.c" "$dispatched" "recorderd --help" "$listed")
	why+=$(diff_lists "recorder/main.c" "$dispatched" "recorderd.8 .SS" "$sections")
	# Each one really runs: its own --help, exit 0, a usage line.
	for c in $dispatched; do
		help[$c]=$("$RECORDERD" "$c" --help 2>&1)
		rc=$?
		[ "$rc" -eq 0 ] && grep -q "^usage: recorderd $c" <<<"${help[$c]}" ||
			why+="'recorderd $c --help' exits $rc without a usage line; "
	done
	if [ -z "$why" ]; then t_ok "commands: dispatched = listed by --help = man sections"
	else t_fail "commands: dispatched = listed by --help = man sections" "$why"
	fi
fi

# The keys of config.c's table, { "key", K_TYPE, ... }, against the CONFIGURATION tags.
code_keys=$(sed -nE 's/^[ \t]*\{[ \t]*"([a-z][a-z0-9_]*)",[ \t]*K_[A-Z]+,.*/\1/p' "$CONFIG_C" |
	sort -u)
doc_keys=$(man_keys)
if [ -z "$code_keys" ] || [ -z "$doc_keys" ]; then
	t_fail "config keys: config.c = man page" \
		"a list came out empty: config.c '$code_keys', man '$doc_keys'"
else
	why=$(diff_lists "recorder/daemon/config.c" "$code_keys" "recorderd.8 CONFIGURATION" \
		"$doc_keys")
	if [ -z "$why" ]; then t_ok "config keys: config.c = man page"
	else t_fail "config keys: config.c = man page" "$why"
	fi
fi

# One check per command: the options of `recorderd CMD --help` = those of its section.
for c in $dispatched; do
	name="options of $c: --help = man page"
	h=$(help_opts <<<"${help[$c]}")
	m=$(man_opts "$c")
	if [ -z "$h" ] && [ -z "$m" ]; then
		t_fail "$name" "no option found in either (the extraction is broken)"
		continue
	fi
	why=$(diff_lists "--help" "$h" "recorderd.8" "$m")
	if [ -z "$why" ]; then t_ok "$name"; else t_fail "$name" "$why"; fi
done

t_done
