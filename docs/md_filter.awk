# SPDX-License-Identifier: BSD-3-Clause
# Doxygen input filter of the Markdown pages (docs/CMakeLists.txt runs it through
# FILTER_PATTERNS): it rewrites what GitHub renders right and Doxygen 1.9 does not, and leaves
# fenced code blocks and code spans' text as they are. POSIX awk (mawk, gawk, busybox).
#
# 1. Figure links: the handouts link their figures relatively, for GitHub's repository view
#    (![...](../../docs/figures/banks/x.svg)); Doxygen looks an image up by its file name in
#    IMAGE_PATH, so the folders are dropped and Doxygen finds each figure and copies it.
# 2. Folded sections (a line <details><summary>...</summary>, then Markdown, then a line
#    </details>) go to the HTML as they are: Doxygen otherwise wraps every paragraph inside
#    in a <details> of its own, so the section would not fold as one.
# 3. HTML comments (the handouts' <!-- ref ... *100 --> number markers): their '*' and '_'
#    become character references. Doxygen's Markdown pass does not skip comments, so a '*'
#    in one opened an emphasis that ended at the next '*' of the text ("found </em> tag
#    without matching <em>", a warning that fails the build).
# 4. Code spans holding a quote followed by a non-word character (--gtest_filter='X.*'):
#    Doxygen reads `text' as a quotation (‘text’) and the span loses its code formatting;
#    the span gets double backticks, which Doxygen and GitHub render as the same code.
# 5. Headings: a code span in one shows as literal <tt>...</tt> in the page and the tree
#    view, so its text goes in plain (with < and > as character references).
# 6. Bold text holding a code span (**`ldmatrix` addresses.**, **Runners (`tools/`).**):
#    Doxygen leaves the asterisks as they are; such a bold becomes <b>...</b>.
# 7. Instructor-only passages (<!-- instructor-only --> ... <!-- /instructor-only -->, as
#    the student release export removes them): the site is public, so they are dropped.
BEGIN { fence = 0; incomment = 0; nspan = 0; instructor = 0 }

{
  line = $0
  if (!fence && line ~ /^[ \t]*<!-- instructor-only -->[ \t]*$/) { instructor = 1; next }
  if (instructor) { if (line ~ /^[ \t]*<!-- \/instructor-only -->[ \t]*$/) instructor = 0; print ""; next }
  if (!incomment && line ~ /^[ \t]*(```|~~~)/) { fence = !fence; print line; next }
  if (fence) { print line; next }
  if (!incomment && line ~ /^<details><summary>.*<\/summary>[ \t]*$/) {
    print "\\htmlonly " line " \\endhtmlonly"; next
  }
  if (!incomment && line ~ /^<\/details>[ \t]*$/) { print "\\htmlonly </details> \\endhtmlonly"; next }

  heading = (!incomment && line ~ /^#+[ \t]/)
  out = ""; i = 1; n = length(line)
  while (i <= n) {
    if (incomment) {
      rest = substr(line, i); j = index(rest, "-->")
      if (j == 0) { seg = rest; i = n + 1 } else { seg = substr(rest, 1, j + 2); i += j + 2; incomment = 0 }
      gsub(/\*/, "\\&#42;", seg); gsub(/_/, "\\&#95;", seg)
      out = out seg
      continue
    }
    if (substr(line, i, 4) == "<!--") { incomment = 1; out = out "<!--"; i += 4; continue }
    c = substr(line, i, 1)
    if (c == "`") {
      k = i; while (k <= n && substr(line, k, 1) == "`") k++
      run = k - i; tick = substr(line, i, run)
      # the closing run: the next run of exactly as many backticks
      m = k; cl = 0
      while (m <= n) {
        if (substr(line, m, 1) == "`") {
          e = m; while (e <= n && substr(line, e, 1) == "`") e++
          if (e - m == run) { cl = m; break }
          m = e
        } else m++
      }
      if (!cl) { out = out tick; i = k; continue }
      content = substr(line, k, cl - k)
      if (heading) { span = content; gsub(/</, "\\&lt;", span); gsub(/>/, "\\&gt;", span) }
      else if (run == 1 && content ~ /'([^A-Za-z0-9_]|$)/) span = "``" content "``"
      else span = tick content tick
      # the span is set aside while the text around it is rewritten (6.)
      nspan++; spans[nspan] = span; out = out "\001" nspan "\002"
      i = cl + run
      continue
    }
    out = out c; i++
  }
  # figure links -> bare file names (outside code spans is where they are)
  gsub(/\]\([.\/]*(docs\/)?figures\/(banks|perf)\//, "](", out)
  # 6. bold text holding a code span -> <b>...</b>
  res = ""
  while (match(out, /\*\*[^* ][^*]*\*\*/)) {
    inner = substr(out, RSTART + 2, RLENGTH - 4)
    if (index(inner, "\001")) res = res substr(out, 1, RSTART - 1) "<b>" inner "</b>"
    else res = res substr(out, 1, RSTART + RLENGTH - 1)
    out = substr(out, RSTART + RLENGTH)
  }
  out = res out
  # the code spans back in
  res = ""
  while (match(out, /\001[0-9]+\002/)) {
    res = res substr(out, 1, RSTART - 1) spans[substr(out, RSTART + 1, RLENGTH - 2) + 0]
    out = substr(out, RSTART + RLENGTH)
  }
  print res out
}
