package browser

import "testing"

// A handle on Infinity, NaN, -0 or a BigInt holds its value, not null; a
// property read without awaiting that is a promise is a handle on the
// promise (JSHandle.get_property).
func TestHandleValuesAndPromiseProperties(t *testing.T) {
	p := open(t, "/buttons.html")
	for src, want := range map[string]string{
		"() => Infinity": `{"n":"Infinity"}`, "() => -Infinity": `{"n":"-Infinity"}`, "() => NaN": `{"n":"NaN"}`,
		"() => -0": `{"n":"-0"}`, "() => 12n": `{"bi":"12"}`, "() => 7": "7",
	} {
		res, err := p.Call(bg, JSCall{Source: src, ReturnHandle: true}, 0)
		if err != nil || string(res.Value) != want {
			t.Errorf("%s as a handle: %s, %v; want %s", src, res.Value, err, want)
		}
	}
	obj, err := p.Call(bg, JSCall{Source: "() => ({b: Promise.resolve(123)})", ReturnHandle: true}, 0)
	if err != nil {
		t.Fatal(err)
	}
	prop, err := p.Call(bg, JSCall{Source: "(o) => o.b", Element: obj.Handle, ReturnHandle: true, NoAwait: true}, 0)
	if err != nil || prop.Subtype != "promise" {
		t.Errorf("a promise property read without awaiting: %+v, %v", prop, err)
	}
	awaited, err := p.Call(bg, JSCall{Source: "(o) => o.b", Element: obj.Handle}, 0)
	if err != nil || string(awaited.Value) != "123" {
		t.Errorf("the same, awaited: %s, %v", awaited.Value, err)
	}
}
