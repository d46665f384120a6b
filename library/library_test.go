package library

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const toolScript = `import argparse
CITY = "Lisbon"

def run(city: str = CITY, nights: int = 2, budget=150.0, pets: bool = False):
    return {"city": city}

def main():
    p = argparse.ArgumentParser(description="Find a hotel. Returns city.")
    p.add_argument("--city", default=CITY, help="where to stay")
    p.add_argument("--nights", type=int, default=2, help="how long")
    p.add_argument("--budget", default=150.0)
    p.add_argument("--pets", action="store_true", help="travelling with pets")
    p.add_argument("--sort", choices=["price", "rating"], default="price")
    p.add_argument("guest", help="the guest's name")
    p.parse_args()

if __name__ == "__main__":
    main()
`

func TestReadInterface(t *testing.T) {
	iface, err := ReadInterface(context.Background(), "", []byte(toolScript))
	if err != nil {
		t.Fatal(err)
	}
	if !iface.Argparse || !iface.Run {
		t.Errorf("argparse %v, run %v", iface.Argparse, iface.Run)
	}
	got := map[string]Param{}
	for _, p := range iface.Params {
		got[p.Name] = p
	}
	want := map[string]struct {
		typ      string
		def      any
		required bool
	}{
		"city":   {"str", "Lisbon", false},
		"nights": {"int", 2.0, false},
		"budget": {"float", 150.0, false},
		"pets":   {"bool", false, false},
		"sort":   {"str", "price", false},
		"guest":  {"str", nil, true},
	}
	if len(got) != len(want) {
		t.Fatalf("params: %+v", iface.Params)
	}
	for name, w := range want {
		p := got[name]
		if p.Type != w.typ || !reflect.DeepEqual(p.Default, w.def) || p.Required != w.required {
			t.Errorf("%s: %+v, want %+v", name, p, w)
		}
	}
	if got["pets"].Action != "store_true" || got["city"].Help != "where to stay" || got["guest"].Flag != "" {
		t.Errorf("pets %+v city %+v guest %+v", got["pets"], got["city"], got["guest"])
	}

	if _, err := ReadInterface(context.Background(), "", []byte("def run(:\n")); err == nil {
		t.Error("a script that does not parse gave an interface")
	}
	none, err := ReadInterface(context.Background(), "", []byte("print('hi')\n"))
	if err != nil || none.Argparse || len(none.Params) != 0 {
		t.Errorf("a plain script: %+v %v", none, err)
	}
}

func TestInputs(t *testing.T) {
	iface, err := ReadInterface(context.Background(), "", []byte(toolScript))
	if err != nil {
		t.Fatal(err)
	}
	args, values, err := iface.Inputs([]string{"city=Porto", "nights=3", "pets=true", "guest=-Ann"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"--city", "Porto", "--nights", "3", "--pets", "--", "-Ann"}; !reflect.DeepEqual(args, want) {
		t.Errorf("args %q, want %q", args, want)
	}
	if values["nights"] != int64(3) || values["budget"] != 150.0 || values["guest"] != "-Ann" {
		t.Errorf("values %v", values)
	}
	for in, msg := range map[string]string{
		"citty=Porto":  "did you mean city",
		"nights=three": "not an int",
		"budget=cheap": "not a float",
		"pets=maybe":   "not a bool",
		"sort=name":    "not one of",
		"city":         "name=value",
	} {
		_, _, err := iface.Inputs([]string{in, "guest=Ann"})
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want a usage error saying %q", in, err, msg)
		}
	}
	if _, _, err := iface.Inputs(nil); err == nil || !strings.Contains(err.Error(), "missing parameter guest") {
		t.Errorf("missing guest: %v", err)
	}
}

func TestTemplate(t *testing.T) {
	params := []Param{{Name: "item", Default: "Office chair"}, {Name: "count", Default: 12.0}, {Name: "x", Default: "a"}, {Name: "flag", Default: true}}
	task := `Buy 12 of "Office chair" {in stock} at a shop; office chairs only. Office chair!`
	tpl := MakeTemplate(task, params)
	if want := `Buy {count} of "{item}" {{in stock}} at a shop; office chairs only. {item}!`; tpl != want {
		t.Fatalf("template %q\nwant     %q", tpl, want)
	}
	if got := Placeholders(tpl); !reflect.DeepEqual(got, []string{"count", "item", "item"}) {
		t.Errorf("placeholders %v", got)
	}
	filled, err := Fill(tpl, map[string]any{"item": "Desk lamp", "count": int64(3)})
	if err != nil || filled != `Buy 3 of "Desk lamp" {in stock} at a shop; office chairs only. Desk lamp!` {
		t.Errorf("fill: %q %v", filled, err)
	}
	if _, err := Fill(tpl, map[string]any{"item": "x"}); err == nil {
		t.Error("a missing value filled")
	}
	// The default inputs give the task back.
	back, err := Fill(tpl, map[string]any{"item": "Office chair", "count": 12.0})
	if err != nil || back != task {
		t.Errorf("round trip: %q %v", back, err)
	}
}

func TestChanges(t *testing.T) {
	prev := Interface{Params: []Param{{Name: "item", Flag: "--item", Type: "str"}, {Name: "n", Flag: "--n", Type: "int", Default: 1.0}},
		Output: ShapeOf(map[string]any{"item": "a", "price": 1.0})}
	same := prev
	same.Params = []Param{{Name: "item", Flag: "--item", Type: "str", Help: "new help"}, {Name: "n", Flag: "--n", Type: "int", Default: 2.0}}
	if c := Changes(prev, same); len(c) != 0 {
		t.Errorf("help and defaults are no interface change: %v", c)
	}
	next := Interface{Params: []Param{{Name: "item", Flag: "--item", Type: "int"}, {Name: "m", Flag: "--m", Type: "str"}},
		Output: ShapeOf(map[string]any{"item": "a", "price": "1"})}
	got := strings.Join(Changes(prev, next), "; ")
	for _, want := range []string{"item: type str became int", "n removed", "m added", "output.price: number became string"} {
		if !strings.Contains(got, want) {
			t.Errorf("changes %q lack %q", got, want)
		}
	}
}

func TestSaveVersionsHistoryExportImport(t *testing.T) {
	lib, err := Open(filepath.Join(t.TempDir(), "lib"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lib.Save(SaveSpec{Version: Version{Name: "../x"}, Script: []byte("x")}); err == nil {
		t.Error("a name with a path was saved")
	}
	run := t.TempDir()
	os.MkdirAll(filepath.Join(run, "screenshots"), 0o755)
	os.WriteFile(filepath.Join(run, "screenshots", "final_execution_1_a.png"), []byte("png"), 0o644)
	os.WriteFile(filepath.Join(run, "result.json"), []byte(`{"a": 1}`), 0o644)
	v1, err := lib.Save(SaveSpec{Version: Version{Name: "s", Source: "run", Task: "t"}, Script: []byte("print(1)\n"), Schema: `{"type": "object"}`, VerifiedRun: run})
	if err != nil {
		t.Fatal(err)
	}
	v2, err := lib.Save(SaveSpec{Version: Version{Name: "s", Source: "heal", HealedFrom: 1}, Script: []byte("print(2)\n"), Diff: "d"})
	if err != nil || v1.Version.Version != 1 || v2.Version.Version != 2 {
		t.Fatalf("versions %d %d %v", v1.Version.Version, v2.Version.Version, err)
	}
	if _, err := os.Stat(filepath.Join(v1.Dir, VerifiedDir, "screenshots", "final_execution_1_a.png")); err != nil {
		t.Error(err)
	}
	if d, _ := lib.Diff("s", 1, 2); !strings.Contains(d, "-print(1)") || !strings.Contains(d, "+print(2)") {
		t.Errorf("diff %q", d)
	}
	yes := true
	if err := lib.Append("s", Event{Kind: EventRerun, Version: 2, Inputs: map[string]any{"item": "Office chair"}, Verified: &yes}); err != nil {
		t.Fatal(err)
	}
	hist, err := lib.History("s")
	if err != nil || len(hist) != 3 || !strings.Contains(DescribeEvent(hist[1], nil), "v2  healed from v1") || !strings.Contains(DescribeEvent(hist[2], nil), "item=Office chair  verified") {
		t.Fatalf("history %v %+v", err, hist)
	}
	// A hand-edited script is refused, not rerun.
	os.WriteFile(filepath.Join(v2.Dir, ScriptFile), []byte("print('edited')\n"), 0o644)
	if _, err := v2.Script(); err == nil || !strings.Contains(err.Error(), "hash") {
		t.Errorf("edited script: %v", err)
	}
	os.WriteFile(filepath.Join(v2.Dir, ScriptFile), []byte("print(2)\n"), 0o644)

	file := filepath.Join(t.TempDir(), "s.tar.gz")
	os.MkdirAll(filepath.Join(lib.ScriptDir("s"), RerunsDir, "r1"), 0o755)
	os.WriteFile(filepath.Join(lib.ScriptDir("s"), RerunsDir, "r1", "big"), []byte("x"), 0o644)
	if err := lib.Export("s", file); err != nil {
		t.Fatal(err)
	}
	other, _ := Open(filepath.Join(t.TempDir(), "other"))
	name, err := other.Import(file, "")
	if err != nil || name != "s" {
		t.Fatalf("import %q %v", name, err)
	}
	if vs, err := other.Versions("s"); err != nil || len(vs) != 2 {
		t.Errorf("imported versions %v", err)
	}
	if _, err := os.Stat(filepath.Join(other.ScriptDir("s"), RerunsDir)); err == nil {
		t.Error("rerun folders were exported")
	}
	var ue *UsageError
	if _, err := other.Import(file, ""); !errors.As(err, &ue) {
		t.Errorf("import over an existing script: %v", err)
	}
	if err := lib.Remove("s"); err != nil {
		t.Fatal(err)
	}
	if _, err := lib.Latest("s"); !errors.Is(err, ErrNotFound) {
		t.Errorf("after rm: %v", err)
	}
}
