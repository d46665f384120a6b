package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"wright/library"
	"wright/run/rundir"
)

// A run's files a client may read, and how their URIs are made:
// wright://run/<run folder's name>/<file> and wright://script/<name>.
const (
	stepsFile  = "steps.md"
	resultFile = "result.json"
	runPrefix  = "wright://run/"
	scriptPref = "wright://script/"
	// listedRuns is how many of the newest runs resources/list names;
	// older ones are still read by their URI.
	listedRuns = 20
)

func runURI(id, file string) string { return runPrefix + id + "/" + file }
func scriptURI(name string) string  { return scriptPref + name }

func (s *Server) addResources() {
	s.sdk.AddResourceTemplate(&mcp.ResourceTemplate{Name: "run", URITemplate: runPrefix + "{run}/{file}", MIMEType: "text/plain",
		Description: "a script_make run's debug/steps.md or result.json"}, s.readRun)
	if s.opts.Library != nil {
		s.sdk.AddResourceTemplate(&mcp.ResourceTemplate{Name: "script", URITemplate: scriptPref + "{name}", MIMEType: "text/x-python",
			Description: "a library script's newest version"}, s.readScript)
	}
	s.syncResources()
}

// syncResources lists the library's scripts and the newest runs of the
// output folder as resources, after anything that may have made one.
func (s *Server) syncResources() {
	var want []*mcp.Resource
	if s.opts.Library != nil {
		names, _ := s.opts.Library.Names()
		for _, n := range names {
			want = append(want, &mcp.Resource{URI: scriptURI(n), Name: "script " + n, MIMEType: "text/x-python"})
		}
	}
	for _, id := range s.runIDs() {
		want = append(want,
			&mcp.Resource{URI: runURI(id, stepsFile), Name: id + " steps", MIMEType: "text/markdown"},
			&mcp.Resource{URI: runURI(id, resultFile), Name: id + " result", MIMEType: "application/json"})
	}
	for _, r := range want {
		h := s.readRun
		if strings.HasPrefix(r.URI, scriptPref) {
			h = s.readScript
		}
		s.sdk.AddResource(r, h) // replaces one of the same URI
	}
}

// runIDs are the names of the newest run folders in the output folder.
func (s *Server) runIDs() []string {
	entries, err := os.ReadDir(s.opts.OutputDir)
	if err != nil {
		return nil
	}
	type run struct {
		id  string
		mod int64
	}
	var runs []run
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		fi, err := os.Stat(filepath.Join(s.opts.OutputDir, e.Name(), "result.json"))
		if err != nil {
			fi, err = os.Stat(filepath.Join(s.opts.OutputDir, e.Name(), "trajectory.json"))
		}
		if err == nil {
			runs = append(runs, run{e.Name(), fi.ModTime().UnixNano()})
		}
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].mod > runs[j].mod })
	var ids []string
	for i, r := range runs {
		if i == listedRuns {
			break
		}
		ids = append(ids, r.id)
	}
	return ids
}

func (s *Server) readRun(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, file, ok := strings.Cut(strings.TrimPrefix(uri, runPrefix), "/")
	// A run's id is a folder name, never a path: nothing outside the
	// output folder is read.
	if !ok || id == "" || id != rundir.SafeID(id) || strings.HasPrefix(id, ".") {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	var parts []string
	var mime string
	switch file {
	case stepsFile:
		parts, mime = []string{id, "debug", stepsFile}, "text/markdown"
	case resultFile:
		parts, mime = []string{id, resultFile}, "application/json"
	default:
		return nil, mcp.ResourceNotFoundError(uri)
	}
	b, err := readBelow(s.opts.OutputDir, parts...)
	if errors.Is(err, os.ErrNotExist) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", uri, err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: s.redact(string(b))}}}, nil
}

func (s *Server) readScript(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	name := strings.TrimPrefix(uri, scriptPref)
	if s.opts.Library == nil || library.CheckName(name) != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	v, err := s.opts.Library.Latest(name)
	if errors.Is(err, library.ErrNotFound) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, err
	}
	b, err := v.Script()
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/x-python", Text: s.redact(string(b))}}}, nil
}
