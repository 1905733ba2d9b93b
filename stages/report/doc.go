package report

import (
	"fmt"
	"html"
	"strings"
	"unicode/utf8"

	"yardstick/pipeline/safetext"
)

// A doc is a document as a list of blocks (the report, a comparison),
// rendered to Markdown, HTML or plain text by the same walk so that all
// say the same thing.
type doc struct {
	blocks []block
}

type blockKind int

const (
	bHeading blockKind = iota
	bPara
	bTable
	bChart
	bList
	// bFold opens a part folded away in HTML (<details>, text is its
	// summary) and bFoldEnd closes it; Markdown and text show the part
	// plainly.
	bFold
	bFoldEnd
)

type block struct {
	kind  blockKind
	level int
	text  string
	// caption is a table's preconditions line.
	caption string
	// left is the number of a table's leading text columns, aligned
	// left; the others hold numbers and align right.
	left  int
	head  []string
	rows  [][]string
	items []string
	chart *chartFile
	// literal: text is untrusted (a definition's description), shown as
	// it is: no inline code, Markdown escaped.
	literal bool
}

// A chartFile is one SVG chart written beside the report.
type chartFile struct {
	File  string
	Title string
	SVG   string
}

func (d *doc) h(level int, format string, args ...any) {
	d.blocks = append(d.blocks, block{kind: bHeading, level: level, text: fmt.Sprintf(format, args...)})
}

func (d *doc) p(format string, args ...any) {
	d.blocks = append(d.blocks, block{kind: bPara, text: fmt.Sprintf(format, args...)})
}

// literal adds a paragraph of untrusted text, shown as it is.
func (d *doc) literal(text string) {
	d.blocks = append(d.blocks, block{kind: bPara, text: text, literal: true})
}

func (d *doc) list(items []string) {
	d.blocks = append(d.blocks, block{kind: bList, items: items})
}

// table adds a table whose first column is text and the others numbers.
func (d *doc) table(caption string, head []string, rows [][]string) {
	d.tableLeft(1, caption, head, rows)
}

// tableLeft adds a table whose first left columns are text.
func (d *doc) tableLeft(left int, caption string, head []string, rows [][]string) {
	d.blocks = append(d.blocks, block{kind: bTable, caption: caption, left: left, head: head, rows: rows})
}

// fold starts a part shown folded in HTML, under summary; foldEnd ends it.
func (d *doc) fold(summary string) {
	d.blocks = append(d.blocks, block{kind: bFold, text: summary})
}

func (d *doc) foldEnd() { d.blocks = append(d.blocks, block{kind: bFoldEnd}) }

func (d *doc) chart(c *chartFile) {
	d.blocks = append(d.blocks, block{kind: bChart, chart: c})
}

func (d *doc) charts() []*chartFile {
	var out []*chartFile
	for _, b := range d.blocks {
		if b.kind == bChart {
			out = append(out, b.chart)
		}
	}
	return out
}

// plainBlocks are the blocks without the fold marks, which only HTML
// draws.
func (d *doc) plainBlocks() []block {
	var out []block
	for _, bl := range d.blocks {
		if bl.kind != bFold && bl.kind != bFoldEnd {
			out = append(out, bl)
		}
	}
	return out
}

// mdCell escapes a table cell: cells hold values read from the datasets
// (names, labels, check details), which may come from elsewhere.
func mdCell(s string) string { return safetext.MarkdownCell(s) }

// mdText escapes a heading, paragraph, list item or caption: its text
// carries names, labels, descriptions and the question from the
// definition, so `code` spans are its only markup (as in HTML, inline),
// and nothing in it can start a line, a table or raw HTML.
func mdText(s string) string { return safetext.MarkdownInline(s) }

// markdown renders the document as GitHub-flavoured Markdown; charts are
// images next to the file.
func (d *doc) markdown() []byte {
	var b strings.Builder
	for i, bl := range d.plainBlocks() {
		if i > 0 {
			b.WriteString("\n")
		}
		switch bl.kind {
		case bHeading:
			fmt.Fprintf(&b, "%s %s\n", strings.Repeat("#", bl.level), mdText(bl.text))
		case bPara:
			if bl.literal {
				b.WriteString(safetext.MarkdownCell(bl.text) + "\n")
				break
			}
			b.WriteString(mdText(bl.text) + "\n")
		case bList:
			for _, it := range bl.items {
				fmt.Fprintf(&b, "- %s\n", mdText(it))
			}
		case bTable:
			if bl.caption != "" {
				fmt.Fprintf(&b, "_%s_\n\n", mdText(bl.caption))
			}
			b.WriteString("|")
			for _, h := range bl.head {
				b.WriteString(" " + mdCell(h) + " |")
			}
			b.WriteString("\n|")
			for j := range bl.head {
				if j < bl.left {
					b.WriteString("---|")
				} else {
					b.WriteString("--:|")
				}
			}
			b.WriteString("\n")
			for _, r := range bl.rows {
				b.WriteString("|")
				for _, c := range r {
					b.WriteString(" " + mdCell(c) + " |")
				}
				b.WriteString("\n")
			}
		case bChart:
			fmt.Fprintf(&b, "![%s](%s)\n", mdCell(bl.chart.Title), bl.chart.File)
		}
	}
	return []byte(b.String())
}

// text renders the document as plain text for a terminal: headings and
// paragraphs as lines, lists as "- " lines, tables as aligned columns;
// inline code loses its backticks. Charts are named, not drawn.
func (d *doc) text() []byte {
	var b strings.Builder
	for i, bl := range d.plainBlocks() {
		if i > 0 {
			b.WriteString("\n")
		}
		switch bl.kind {
		case bHeading, bPara:
			b.WriteString(plain(bl.text) + "\n")
		case bList:
			for _, it := range bl.items {
				b.WriteString("- " + plain(it) + "\n")
			}
		case bTable:
			if bl.caption != "" {
				b.WriteString(plain(bl.caption) + "\n")
			}
			textTable(&b, bl)
		case bChart:
			fmt.Fprintf(&b, "chart: %s (%s)\n", bl.chart.Title, bl.chart.File)
		}
	}
	return []byte(b.String())
}

// textTable writes a table's head and rows in columns as wide as their
// widest cell, two spaces apart, text left and numbers right.
func textTable(b *strings.Builder, bl block) {
	width := make([]int, len(bl.head))
	for _, r := range append([][]string{bl.head}, bl.rows...) {
		for j, c := range r {
			if j < len(width) {
				width[j] = max(width[j], utf8.RuneCountInString(plain(c)))
			}
		}
	}
	for _, r := range append([][]string{bl.head}, bl.rows...) {
		var cells []string
		for j, c := range r {
			if j >= len(width) {
				break
			}
			pad := strings.Repeat(" ", width[j]-utf8.RuneCountInString(plain(c)))
			if j < bl.left {
				cells = append(cells, plain(c)+pad)
			} else {
				cells = append(cells, pad+plain(c))
			}
		}
		b.WriteString(strings.TrimRight(strings.Join(cells, "  "), " ") + "\n")
	}
}

// plain drops the backticks of inline code.
func plain(s string) string { return strings.ReplaceAll(s, "`", "") }

// inline renders the few inline forms the text uses: `code`.
func inline(s string) string {
	parts := strings.Split(s, "`")
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 && i < len(parts)-1 {
			b.WriteString("<code>" + html.EscapeString(p) + "</code>")
		} else {
			if i%2 == 1 {
				b.WriteString("`")
			}
			b.WriteString(html.EscapeString(p))
		}
	}
	return b.String()
}

const css = `body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:24px auto;max-width:1400px;padding:0 16px;color:#222;background:#fff}
h1{font-size:24px}h2{font-size:20px;border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:32px}h3{font-size:16px;margin-top:24px}h4{font-size:14px}
.tw{overflow-x:auto;margin:8px 0 16px}table{border-collapse:collapse;font-size:13px}th,td{border:1px solid #ccc;padding:3px 8px;text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left}th{background:#f3f3f3}tr:nth-child(even) td{background:#fafafa}
caption{caption-side:top;text-align:left;font-style:italic;color:#555;padding:4px 0}
code{background:#f3f3f3;padding:0 3px;border-radius:3px}
figure{display:inline-block;vertical-align:top;width:calc(50% - 12px);margin:8px 8px 8px 0}figure svg{width:100%;height:auto}
@media (max-width:900px){figure{width:100%}}
details{margin:8px 0 16px}summary{cursor:pointer;color:#555}
td.unfair,li.unfair{color:#a40000}`

// html renders a self-contained page: inline CSS and SVG, no script, no
// external resource, so that it opens from disk.
func (d *doc) html(title string) []byte {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<link rel=\"icon\" href=\"data:,\">\n")
	fmt.Fprintf(&b, "<title>%s</title>\n<style>\n%s\n</style>\n</head>\n<body>\n", html.EscapeString(title), css)
	for _, bl := range d.blocks {
		switch bl.kind {
		case bHeading:
			fmt.Fprintf(&b, "<h%d>%s</h%d>\n", bl.level, inline(bl.text), bl.level)
		case bPara:
			if bl.literal {
				fmt.Fprintf(&b, "<p>%s</p>\n", html.EscapeString(bl.text))
				break
			}
			fmt.Fprintf(&b, "<p>%s</p>\n", inline(bl.text))
		case bList:
			b.WriteString("<ul>\n")
			for _, it := range bl.items {
				fmt.Fprintf(&b, "<li>%s</li>\n", inline(it))
			}
			b.WriteString("</ul>\n")
		case bTable:
			b.WriteString("<div class=\"tw\"><table>\n")
			if bl.caption != "" {
				fmt.Fprintf(&b, "<caption>%s</caption>\n", inline(bl.caption))
			}
			b.WriteString("<thead><tr>")
			for _, h := range bl.head {
				fmt.Fprintf(&b, "<th>%s</th>", inline(h))
			}
			b.WriteString("</tr></thead>\n<tbody>\n")
			for _, r := range bl.rows {
				b.WriteString("<tr>")
				for _, c := range r {
					if strings.Contains(c, "UNFAIR") {
						fmt.Fprintf(&b, "<td class=\"unfair\">%s</td>", inline(c))
					} else {
						fmt.Fprintf(&b, "<td>%s</td>", inline(c))
					}
				}
				b.WriteString("</tr>\n")
			}
			b.WriteString("</tbody></table></div>\n")
		case bFold:
			fmt.Fprintf(&b, "<details>\n<summary>%s</summary>\n", inline(bl.text))
		case bFoldEnd:
			b.WriteString("</details>\n")
		case bChart:
			fmt.Fprintf(&b, "<figure id=\"%s\">\n%s</figure>\n", html.EscapeString(strings.TrimSuffix(bl.chart.File, ".svg")), stripXMLDecl(bl.chart.SVG))
		}
	}
	b.WriteString("</body>\n</html>\n")
	return []byte(b.String())
}

func stripXMLDecl(s string) string {
	if strings.HasPrefix(s, "<?xml") {
		if i := strings.Index(s, "?>"); i >= 0 {
			return strings.TrimLeft(s[i+2:], "\n")
		}
	}
	return s
}
