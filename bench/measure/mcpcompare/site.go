package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"
)

// notesSpec is the OpenAPI document swagger-ui explores in the sequence:
// a small API of this program's own, served beside the pages, because the
// page's default document is on the internet.
const notesSpec = `{
  "openapi": "3.0.3",
  "info": {"title": "Notes", "version": "1.0.0", "description": "A small notes service."},
  "paths": {
    "/notes": {
      "get": {
        "summary": "List the notes",
        "operationId": "listNotes",
        "tags": ["notes"],
        "parameters": [
          {"name": "limit", "in": "query", "description": "How many notes at most", "schema": {"type": "integer", "default": 20}},
          {"name": "tag", "in": "query", "description": "Only notes with this tag", "schema": {"type": "string"}}
        ],
        "responses": {"200": {"description": "The notes", "content": {"application/json": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/Note"}}}}}}
      },
      "post": {
        "summary": "Add a note",
        "operationId": "addNote",
        "tags": ["notes"],
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/NewNote"}}}},
        "responses": {"201": {"description": "The note made", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Note"}}}}}
      }
    },
    "/notes/{id}": {
      "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
      "get": {"summary": "Read a note", "operationId": "getNote", "tags": ["notes"],
        "responses": {"200": {"description": "The note", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Note"}}}}, "404": {"description": "No such note"}}},
      "delete": {"summary": "Delete a note", "operationId": "deleteNote", "tags": ["notes"], "responses": {"204": {"description": "Deleted"}}}
    },
    "/tags": {
      "get": {"summary": "List the tags in use", "operationId": "listTags", "tags": ["tags"],
        "responses": {"200": {"description": "The tags", "content": {"application/json": {"schema": {"type": "array", "items": {"type": "string"}}}}}}}
    }
  },
  "components": {
    "schemas": {
      "NewNote": {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}}},
      "Note": {"allOf": [{"$ref": "#/components/schemas/NewNote"}, {"type": "object", "properties": {"id": {"type": "integer"}, "created": {"type": "string", "format": "date-time"}}}]}
    }
  }
}
`

// blankPage is where both servers start their browser before anything is
// timed: the first call of either launches Chromium.
const blankPage = `<!doctype html><html><head><title>start</title></head><body><p>ready</p></body></html>`

// serveSite serves the npm pages under /peer/, the notes document and the
// start page on a loopback port, and returns its base URL and what stops it.
func serveSite(nodeModules string) (string, func(), error) {
	mux := http.NewServeMux()
	mux.Handle("/peer/", http.StripPrefix("/peer/", http.FileServer(http.Dir(nodeModules))))
	mux.HandleFunc(specPath, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, notesSpec)
	})
	mux.HandleFunc("/start.html", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, blankPage)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("listen for the pages: %w", err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(ln) // returns on Shutdown
	}()
	stop := func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		<-done
	}
	return "http://" + ln.Addr().String(), stop, nil
}
