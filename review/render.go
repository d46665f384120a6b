package review

import (
	"bytes"
	"fmt"
	"html/template"
	"strings"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// codeStyle is the highlighting palette; its CSS goes inline in each page.
const codeStyle = "github"

var codeFormatter = chromahtml.New(chromahtml.WithClasses(true), chromahtml.TabWidth(4))

// highlight returns code as highlighted HTML (a <pre>), for a language name
// chroma knows ("bash", "python"); anything else is plain text.
func highlight(code, lang string) template.HTML {
	lexer := lexers.Get(lang)
	if lexer == nil {
		lexer = lexers.Fallback
	}
	lexer = chroma.Coalesce(lexer)
	it, err := lexer.Tokenise(nil, code)
	var b bytes.Buffer
	if err == nil {
		err = codeFormatter.Format(&b, styles.Get(codeStyle), it)
	}
	if err != nil {
		return template.HTML("<pre>" + template.HTMLEscapeString(code) + "</pre>")
	}
	return template.HTML(b.String())
}

// codeCSS is the highlighter's stylesheet.
func codeCSS() template.CSS {
	var b bytes.Buffer
	_ = codeFormatter.WriteCSS(&b, styles.Get(codeStyle))
	return template.CSS(b.String())
}

// markdown renders what the model or the judge wrote. Raw HTML is escaped
// (goldmark's default), and images become links: a page must never load
// anything from outside, whatever the model put in its thought.
var markdown = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(imageAsLink{}, 100))),
)

type imageAsLink struct{}

func (imageAsLink) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindImage, func(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			img := n.(*ast.Image)
			fmt.Fprintf(w, `[image: <a href="%s" rel="noreferrer">`, template.HTMLEscapeString(string(img.Destination)))
		} else {
			w.WriteString("</a>]")
		}
		return ast.WalkContinue, nil
	})
}

func renderMarkdown(src string) template.HTML {
	var b bytes.Buffer
	if err := markdown.Convert([]byte(src), &b); err != nil {
		return template.HTML("<pre>" + template.HTMLEscapeString(src) + "</pre>")
	}
	return template.HTML(b.String())
}

// lines counts the lines of s.
func lines(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimRight(s, "\n"), "\n") + 1
}
