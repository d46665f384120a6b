package browser

import "testing"

func TestFeaturesSize(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		w, h int
		ok   bool
	}{
		{[]string{"toolbar=no", "width=600", "height=300", "top=0"}, 600, 300, true},
		{[]string{"innerWidth=640", "innerHeight=480"}, 640, 480, true},
		{[]string{"width=600"}, 600, 0, false},
		{[]string{"width=-5", "height=300"}, 0, 300, false},
		{[]string{"width=abc", "height=300"}, 0, 300, false},
		{nil, 0, 0, false},
	} {
		w, h, ok := featuresSize(tc.in)
		if w != tc.w || h != tc.h || ok != tc.ok {
			t.Errorf("featuresSize(%q) = %d, %d, %v; want %d, %d, %v", tc.in, w, h, ok, tc.w, tc.h, tc.ok)
		}
	}
}
