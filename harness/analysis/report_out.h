/* The report's two renderings from one description: Markdown (report.md)
 * and a self-contained HTML page (index.html: figures embedded as data URIs,
 * inline CSS, no script, nothing fetched). The report code says what to
 * write once; this module knows the two syntaxes and their escaping. */
#ifndef NM_REPORT_OUT_H
#define NM_REPORT_OUT_H
#include <stdio.h>

typedef enum nm_out_kind { NM_OUT_MARKDOWN, NM_OUT_HTML } nm_out_kind;

typedef struct nm_out {
	FILE *f;
	nm_out_kind kind;
	const char *dir;   /* where figure files are, for embedding */
} nm_out;

void nm_out_begin(nm_out *o, const char *title);
void nm_out_end(nm_out *o);
void nm_out_heading(nm_out *o, int level, const char *text);
/* A paragraph of plain text (escaped). */
void nm_out_para(nm_out *o, const char *text);
/* A block of preformatted text (configs, command lines). */
void nm_out_pre(nm_out *o, const char *text);
void nm_out_table(nm_out *o, const char *const *headers, int ncols);
/* One row; cls names an HTML class for the row (NULL for none). */
void nm_out_row(nm_out *o, const char *cls, const char *const *cells, int ncols);
void nm_out_table_end(nm_out *o);
/* The figure file `file` (under dir): a link in Markdown, an <img> with the
 * file's bytes as a base64 data URI in HTML. -1 when it cannot be read. */
int nm_out_figure(nm_out *o, const char *file, const char *alt);
#endif
