// SPDX-License-Identifier: GPL-2.0
/*
 * tests/tools/dat_chunks.c - count a compressed trace.dat's chunks and those stored
 * uncompressed (frame no smaller than its pages), every chunk decompressed on the way.
 * Used by tests/system/016-record-spool.sh.
 *
 *   dat_chunks FILE     prints "chunks N stored S"; exits 1 if FILE cannot be read
 */
#include <stdio.h>

#include "dat_parse.h"

int main(int argc, char **argv)
{
	uint64_t chunks, stored;
	struct dp_file f;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: dat_chunks FILE\n");
		return 2;
	}
	ret = dp_open(argv[1], &f);
	if (ret || !f.buf_compressed) {
		fprintf(stderr, "dat_chunks: %s: %s\n", argv[1],
			ret ? "cannot be parsed" : "not compressed");
		return 1;
	}
	ret = dp_count_chunks(&f, &chunks, &stored);
	dp_close(&f);
	if (ret) {
		fprintf(stderr, "dat_chunks: %s: a bad chunk\n", argv[1]);
		return 1;
	}
	printf("chunks %llu stored %llu\n", (unsigned long long)chunks,
	       (unsigned long long)stored);
	return 0;
}
