/* Markdown and HTML rendering of the report (harness/analysis/report_out.h). */
#include "report_out.h"
#include "alloc.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void html_escaped(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
}

/* A Markdown table cell: '|' escaped, line breaks folded. */
static void md_cell(FILE *f, const char *s)
{
	for (; *s; s++)
		if (*s == '|')
			fputs("\\|", f);
		else
			fputc(*s == '\n' ? ' ' : *s, f);
}

void nm_out_begin(nm_out *o, const char *title)
{
	if (o->kind == NM_OUT_MARKDOWN) {
		fprintf(o->f, "# %s\n\n", title);
		return;
	}
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>", o->f);
	html_escaped(o->f, title);
	fputs("</title>\n<style>\n"
	      "body{font-family:sans-serif;max-width:1300px;margin:1em auto;padding:0 1em;color:#222}\n"
	      "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #bbb;padding:3px 6px;"
	      "text-align:left;vertical-align:top;font-size:90%}\n"
	      "th{background:#eee}pre{background:#f6f6f6;padding:.5em;white-space:pre-wrap;font-size:85%}\n"
	      "img{max-width:100%;border:1px solid #ddd}\n"
	      "tr.reproduced td{background:#e3f6e3}tr.direction-only td{background:#fbf5dc}\n"
	      "tr.not-reproduced td{background:#fbe3e3}tr.not-run td{color:#888}\n"
	      "tr.emulated td:nth-child(7){font-weight:bold;color:#a40}\n"
	      "</style></head><body>\n<h1>", o->f);
	html_escaped(o->f, title);
	fputs("</h1>\n", o->f);
}

void nm_out_end(nm_out *o)
{
	if (o->kind == NM_OUT_HTML)
		fputs("</body></html>\n", o->f);
}

void nm_out_heading(nm_out *o, int level, const char *text)
{
	if (o->kind == NM_OUT_MARKDOWN) {
		fprintf(o->f, "%.*s %s\n\n", level, "######", text);
		return;
	}
	fprintf(o->f, "<h%d>", level);
	html_escaped(o->f, text);
	fprintf(o->f, "</h%d>\n", level);
}

void nm_out_para(nm_out *o, const char *text)
{
	if (o->kind == NM_OUT_MARKDOWN) {
		fprintf(o->f, "%s\n\n", text);
		return;
	}
	fputs("<p>", o->f);
	html_escaped(o->f, text);
	fputs("</p>\n", o->f);
}

void nm_out_pre(nm_out *o, const char *text)
{
	if (o->kind == NM_OUT_MARKDOWN) {
		fprintf(o->f, "```\n%s\n```\n\n", text);
		return;
	}
	fputs("<pre>", o->f);
	html_escaped(o->f, text);
	fputs("</pre>\n", o->f);
}

void nm_out_table(nm_out *o, const char *const *headers, int ncols)
{
	if (o->kind == NM_OUT_MARKDOWN) {
		for (int c = 0; c < ncols; c++) {
			fputs("| ", o->f);
			md_cell(o->f, headers[c]);
			fputc(' ', o->f);
		}
		fputs("|\n", o->f);
		for (int c = 0; c < ncols; c++)
			fputs("|---", o->f);
		fputs("|\n", o->f);
		return;
	}
	fputs("<table><tr>", o->f);
	for (int c = 0; c < ncols; c++) {
		fputs("<th>", o->f);
		html_escaped(o->f, headers[c]);
		fputs("</th>", o->f);
	}
	fputs("</tr>\n", o->f);
}

void nm_out_row(nm_out *o, const char *cls, const char *const *cells, int ncols)
{
	if (o->kind == NM_OUT_MARKDOWN) {
		for (int c = 0; c < ncols; c++) {
			fputs("| ", o->f);
			md_cell(o->f, cells[c]);
			fputc(' ', o->f);
		}
		fputs("|\n", o->f);
		return;
	}
	if (cls) {
		fputs("<tr class=\"", o->f);
		html_escaped(o->f, cls);
		fputs("\">", o->f);
	} else
		fputs("<tr>", o->f);
	for (int c = 0; c < ncols; c++) {
		fputs("<td>", o->f);
		html_escaped(o->f, cells[c]);
		fputs("</td>", o->f);
	}
	fputs("</tr>\n", o->f);
}

void nm_out_table_end(nm_out *o)
{
	fputs(o->kind == NM_OUT_MARKDOWN ? "\n" : "</table>\n", o->f);
}

static void base64(FILE *f, const unsigned char *p, size_t n)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
		fputc(a[v >> 18 & 63], f);
		fputc(a[v >> 12 & 63], f);
		fputc(i + 1 < n ? a[v >> 6 & 63] : '=', f);
		fputc(i + 2 < n ? a[v & 63] : '=', f);
	}
}

int nm_out_figure(nm_out *o, const char *file, const char *alt)
{
	if (o->kind == NM_OUT_MARKDOWN) {
		fprintf(o->f, "![%s](%s)\n\n", alt, file);
		return 0;
	}
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", o->dir, file);
	FILE *in = fopen(path, "rb");
	if (!in)
		return -1;
	size_t cap = 1 << 16, n = 0, got;
	unsigned char *buf = nm_malloc(cap);
	while ((got = fread(buf + n, 1, cap - n, in)) > 0)
		if ((n += got) == cap)
			buf = nm_realloc(buf, cap *= 2);
	fclose(in);
	const char *ext = strrchr(file, '.');
	const char *mime = ext && !strcmp(ext, ".svg") ? "image/svg+xml" : "image/png";
	fprintf(o->f, "<p><img alt=\"");
	html_escaped(o->f, alt);
	fprintf(o->f, "\" src=\"data:%s;base64,", mime);
	base64(o->f, buf, n);
	fputs("\"></p>\n", o->f);
	free(buf);
	return 0;
}
