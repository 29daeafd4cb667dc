#!/usr/bin/env python3
"""derive.py - makes corpus.txt, lab6's text, from the New Testament of the
World English Bible as the SWORD module engWEB2015eb (Debian: sword-text-web)
prints it through diatheke (Debian: diatheke):

    diatheke -b engWEB2015eb -f plain -k "Matthew 1:1-Revelation 22:21" > nt.txt
    python3 data/lab6/derive.py nt.txt > data/lab6/corpus.txt

What it changes: each verse on one line, without its reference; the
module's line breaks inside a verse (poetry) and runs of spaces become one
space; the glossary the module appends after the last verse is left out;
curly quotes become ' and ", the em dash becomes --. The result is printable
ASCII and newlines only: 96 symbols, lab6's vocabulary.
"""
import re
import sys

REF = re.compile(r"^[A-Z][A-Za-z]*(?: [A-Za-z]+)* \d+:\d+: ")
FOLD = {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2014": "--"}


def main(path):
    text = open(path, encoding="utf-8").read()
    text = text.split("The following words used in the World English Bible")[0]
    verses = []
    for line in text.split("\n"):
        m = REF.match(line)
        if m:
            verses.append(line[m.end():])
        elif verses:
            verses[-1] += " " + line
        elif line.strip():
            sys.exit("derive.py: %s: text before the first verse: %r" % (path, line[:60]))
    out = []
    for v in verses:
        for a, b in FOLD.items():
            v = v.replace(a, b)
        v = re.sub(r"\s+", " ", v).strip()
        if v:
            out.append(v)
    body = "\n".join(out) + "\n"
    bad = sorted({c for c in body if c != "\n" and not " " <= c <= "~"})
    if bad:
        sys.exit("derive.py: %s: characters outside printable ASCII: %r" % (path, bad))
    sys.stdout.write(body)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: derive.py NT_PLAIN_TEXT > corpus.txt")
    main(sys.argv[1])
