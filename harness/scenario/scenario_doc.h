/*
 * scenario_doc — the scenario language's reference as a document: the
 * checked-in docs/scenario.md (`faultline help scenario --format
 * markdown`) and man/faultline-scenario.5 (`--format man`).
 *
 * scenario_doc.c walks the same tables `faultline help scenario` prints
 * (the sections' keys, the kinds' own keys, the metrics, the fault
 * families, the lab kinds) and hands what it finds to a renderer, which
 * writes it in its own markup.  Text handed over may hold `code` spans
 * (backquotes, as the keys' help has them); the renderer turns them into
 * its markup and escapes everything else.
 */
#ifndef FL_SCENARIO_DOC_H
#define FL_SCENARIO_DOC_H

#include <stdbool.h>
#include <stdio.h>

/* Where a renderer writes, and what it has written last (roff needs to
 * know whether a paragraph begins after a heading or a list). */
struct doc_out {
    FILE *f;
    int last; /* enum doc_last */
};
enum doc_last { DOC_NOTHING, DOC_HEADING, DOC_PARA, DOC_ITEM, DOC_LIST };

/* One key (or metric) of a table: every field plain text or `code`;
 * def and owners may be "" (no default; a key every kind takes). */
struct doc_row {
    const char *key;
    const char *type;
    const char *def;
    const char *owners; /* the kinds that take it: "iscsi" or "link-down, bandwidth" */
    const char *meaning;
};

/* What the document is. */
struct doc_meta {
    const char *title;   /* "The scenario language" */
    const char *name;    /* "faultline-scenario": the page's name ... */
    int section;         /* ... in this section of the manual */
    const char *what;    /* "the scenario language of faultline" (roff's NAME line) */
    const char *command; /* "help scenario": `faultline COMMAND --format F` prints it */
    const char *date;    /* of the last change of its prose, YYYY-MM-DD (roff's .TH) */
};

struct doc_renderer {
    void (*begin)(struct doc_out *d, const struct doc_meta *m);
    /* level 1: a section of the document (SYNOPSIS), 2: a part of one */
    void (*heading)(struct doc_out *d, int level, const char *text);
    void (*para)(struct doc_out *d, const char *text);
    void (*example)(struct doc_out *d, const char *lines); /* verbatim, '\n'-separated */
    void (*table_begin)(struct doc_out *d);
    void (*row)(struct doc_out *d, const struct doc_row *r);
    void (*table_end)(struct doc_out *d);
    /* a list of terms (`code`) with their text */
    void (*item)(struct doc_out *d, const char *term, const char *text);
    void (*list_end)(struct doc_out *d);
};

extern const struct doc_renderer doc_markdown; /* scenario_doc_md.c */
extern const struct doc_renderer doc_roff;     /* scenario_doc_man.c */

/* The whole reference through r. */
void scenario_doc(FILE *out, const struct doc_renderer *r);

#endif
