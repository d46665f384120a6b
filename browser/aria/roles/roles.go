// Package roles is wright's one table of ARIA roles. Everything that knows
// about roles reads it: role selectors (browser's role= and get_by_role
// validate role names with Is), the ARIA snapshot's builders (the one on
// Chromium's accessibility tree in browser/aria, and the in-page one and
// the selector engine through browser/aria/role_engine.js, which is handed the
// table as JSON) and the snapshot's renderer. Keeping it in one place is
// what keeps a role the snapshot prints a role a selector accepts and
// finds. It imports neither rod nor CDP.
package roles

import (
	"encoding/json"
	"sort"
	"strings"
)

// Trait is something wright knows about a role.
type Trait uint16

const (
	// Author: a valid value of the role attribute (the first valid token wins).
	Author Trait = 1 << iota
	// Action: its element gets a ref: it can be acted on without further evidence.
	Action
	// Value: the snapshot prints its value, not the structure Chromium builds inside.
	Value
	// FromContent: named from its content (AccName 2.F).
	FromContent
	// Container: a nested tree's items inside it do not name the item holding it.
	Container
	// Context: interactive-only snapshots keep it around the controls inside.
	Context
	// The states the snapshot prints for the role, as Playwright does.
	Checked
	Pressed
	Selected
	Level // besides headings, which always have one: only with aria-level
	Expanded
)

// table: every role wright prints or matches. iframe is wright's own
// (the snapshot's line for a frame, which role=iframe finds); none and
// presentation are matched by selectors but never printed.
var table = func() map[string]Trait {
	t := map[string]Trait{}
	add := func(trait Trait, roles string) {
		for _, r := range strings.Fields(roles) {
			t[r] |= trait
		}
	}
	add(Author, `alert alertdialog application article banner blockquote button caption cell checkbox code
		columnheader combobox complementary contentinfo definition deletion dialog directory document emphasis feed
		figure form generic grid gridcell group heading img insertion link list listbox listitem log main mark marquee
		math menu menubar menuitem menuitemcheckbox menuitemradio meter navigation none note option paragraph
		presentation progressbar radio radiogroup region row rowgroup rowheader scrollbar search searchbox separator
		slider spinbutton status strong subscript superscript switch tab table tablist tabpanel term textbox time timer
		toolbar tooltip tree treegrid treeitem comment suggestion graphics-document graphics-object graphics-symbol
		doc-abstract doc-acknowledgments doc-afterword doc-appendix doc-backlink doc-biblioentry doc-bibliography
		doc-biblioref doc-chapter doc-colophon doc-conclusion doc-cover doc-credit doc-credits doc-dedication
		doc-endnote doc-endnotes doc-epigraph doc-epilogue doc-errata doc-example doc-footnote doc-foreword
		doc-glossary doc-glossref doc-index doc-introduction doc-noteref doc-notice doc-pagebreak doc-pagefooter
		doc-pageheader doc-pagelist doc-part doc-preface doc-prologue doc-pullquote doc-qna doc-subtitle doc-tip doc-toc`)
	t["iframe"] |= 0
	add(Action, `link button checkbox radio switch textbox searchbox combobox listbox slider spinbutton tab menuitem
		menuitemcheckbox menuitemradio treeitem option iframe`)
	add(Value, `textbox searchbox spinbutton slider`)
	add(FromContent, `button cell checkbox columnheader gridcell heading link menuitem menuitemcheckbox menuitemradio
		option radio rowheader switch tab tooltip treeitem term`)
	add(Container, `group tree treegrid list listbox menu menubar table grid dialog`)
	add(Context, `alertdialog banner complementary contentinfo dialog form grid main menu menubar navigation
		radiogroup region row search table tablist toolbar tree treegrid iframe listbox combobox`)
	add(Checked, `checkbox menuitemcheckbox option radio switch menuitemradio treeitem`)
	add(Pressed, `button`)
	add(Selected, `gridcell option row tab rowheader columnheader treeitem`)
	add(Level, `listitem row treeitem`)
	add(Expanded, `application button checkbox combobox gridcell link listbox menuitem row rowheader tab treeitem
		columnheader menuitemcheckbox menuitemradio switch`)
	return t
}()

// Has says whether role has the trait t.
func Has(role string, t Trait) bool { return table[role]&t != 0 }

// Is says whether a role selector may name role: every role the snapshot
// prints, and none and presentation.
func Is(role string) bool {
	_, ok := table[role]
	return ok
}

// All lists the roles Is accepts, sorted.
func All() []string {
	out := make([]string, 0, len(table))
	for r := range table {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// Printed says whether a role name (an author's, or Chromium's) is one the
// snapshot prints as it is.
func Printed(role string) bool {
	return Has(role, Author) && role != "none" && role != "presentation"
}

// JSON is the table as role_engine.js reads it: per trait, its roles.
func JSON() string {
	names := map[Trait]string{Author: "author", Action: "action", Value: "value", FromContent: "fromContent",
		Container: "container", Checked: "checked", Selected: "selected", Level: "level", Expanded: "expanded"}
	out := map[string][]string{}
	for _, r := range All() {
		for t, name := range names {
			if Has(r, t) {
				out[name] = append(out[name], r)
			}
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		panic(err) // a map of string slices always marshals
	}
	return string(b)
}
