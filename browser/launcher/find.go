package launcher

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
)

// executableNames are looked up on PATH, in this order, when neither
// Options.Executable nor WRIGHT_BROWSER names a browser.
var executableNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// macBundles are the application bundles looked for on macOS after PATH,
// in /Applications and then ~/Applications: where the installers of
// Chromium (also Homebrew's cask) and Google Chrome put them.
var macBundles = []string{"Chromium.app", "Google Chrome.app", "Google Chrome for Testing.app", "Google Chrome Canary.app"}

// FindExecutable returns the browser Start would start for executable
// (which may be empty), or an error saying how to provide one. It looks at
// executable, then $WRIGHT_BROWSER, then PATH, then (on macOS) the usual
// application folders. A path to a macOS .app bundle stands for the
// program inside it.
func FindExecutable(executable string) (string, error) {
	home, _ := os.UserHomeDir()
	roots := []string{string(filepath.Separator)}
	if home != "" {
		roots = append(roots, home)
	}
	return searchSpace{
		goos: runtime.GOOS, path: os.Getenv("PATH"), env: os.Getenv("WRIGHT_BROWSER"), roots: roots,
	}.find(executable)
}

// searchSpace is everything discovery depends on, so that it can be run
// over directories laid out as another platform installs browsers.
type searchSpace struct {
	goos  string   // runtime.GOOS of the machine searched
	path  string   // its PATH
	env   string   // its WRIGHT_BROWSER
	roots []string // where Applications folders are: / and the home directory
}

func (s searchSpace) find(executable string) (string, error) {
	if executable != "" {
		p, ok := s.resolve(executable)
		if !ok {
			return "", fmt.Errorf("browser executable doesn't exist or is not executable: %q", executable)
		}
		return p, nil
	}
	if s.env != "" {
		p, ok := s.resolve(s.env)
		if !ok {
			return "", fmt.Errorf("WRIGHT_BROWSER=%q is not an executable browser", s.env)
		}
		return p, nil
	}
	for _, name := range executableNames {
		if p, ok := s.lookPath(name); ok {
			return p, nil
		}
	}
	if s.goos == "darwin" {
		for _, root := range s.roots {
			for _, b := range macBundles {
				if p, ok := bundleExecutable(filepath.Join(root, "Applications", b)); ok {
					return p, nil
				}
			}
		}
		return "", fmt.Errorf("no Chrome or Chromium found on PATH or in /Applications or ~/Applications: install Google Chrome or Chromium (Homebrew: brew install --cask chromium), set WRIGHT_BROWSER or browser.executable to its path, or attach to a running browser with a CDP URL (wright never downloads a browser)")
	}
	return "", fmt.Errorf("no Chrome or Chromium found: install chromium, set WRIGHT_BROWSER or browser.executable to its path, or attach to a running browser with a CDP URL (wright never downloads a browser)")
}

// resolve turns a configured browser (a name on PATH, a path to a program
// or to a .app bundle) into the program to run.
func (s searchSpace) resolve(name string) (string, bool) {
	if strings.HasSuffix(strings.TrimRight(name, "/"), ".app") {
		if p, ok := bundleExecutable(name); ok {
			return p, true
		}
	}
	return s.lookPath(name)
}

// lookPath is exec.LookPath over s.path rather than this process's PATH.
func (s searchSpace) lookPath(name string) (string, bool) {
	if strings.ContainsRune(name, filepath.Separator) {
		if isExecutable(name) {
			return filepath.Clean(name), true
		}
		return "", false
	}
	for _, dir := range filepath.SplitList(s.path) {
		if dir == "" {
			continue // an empty entry would mean the working directory
		}
		if p := filepath.Join(dir, name); isExecutable(p) {
			return p, true
		}
	}
	return "", false
}

// cfBundleExecutable finds the program's name in a bundle's Info.plist.
var cfBundleExecutable = regexp.MustCompile(`<key>CFBundleExecutable</key>\s*<string>([^<]+)</string>`)

// bundleExecutable returns the program inside a macOS application bundle:
// Contents/MacOS/<name of the bundle>, or the one Info.plist names.
func bundleExecutable(bundle string) (string, bool) {
	bundle = strings.TrimRight(bundle, "/")
	macos := filepath.Join(bundle, "Contents", "MacOS")
	if p := filepath.Join(macos, strings.TrimSuffix(filepath.Base(bundle), ".app")); isExecutable(p) {
		return p, true
	}
	plist, err := os.ReadFile(filepath.Join(bundle, "Contents", "Info.plist"))
	if err != nil {
		return "", false
	}
	m := cfBundleExecutable.FindSubmatch(plist)
	if m == nil {
		return "", false
	}
	name := strings.TrimSpace(string(m[1]))
	if strings.ContainsRune(name, filepath.Separator) {
		return "", false
	}
	p := filepath.Join(macos, name)
	return p, isExecutable(p)
}

// isExecutable: a regular file (after links) with an execute bit.
func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
