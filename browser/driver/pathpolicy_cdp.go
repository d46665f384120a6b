package driver

import (
	"bytes"
	"encoding/json"
	"fmt"

	"wright/browser/cdpsession"
)

// What a guarded CDP session may not ask even of the domains it is allowed
// (cdpsession.Allowed decides by method; this by what the params do):
// host files handed to the page, and code run in a world other than the
// page's own. wright's engine world and the secret guard's world are out
// of the page's scripts' reach, and must stay out of a CDP session's too,
// or the guard could be told the focus is somewhere it is not.

// refusedParams are the params that name another world or context.
var refusedParams = map[string][]string{
	"Runtime.evaluate":                      {"contextId", "uniqueContextId"},
	"Runtime.callFunctionOn":                {"executionContextId", "uniqueContextId"},
	"Runtime.compileScript":                 {"executionContextId"},
	"Runtime.runScript":                     {"executionContextId"},
	"Runtime.globalLexicalScopeNames":       {"executionContextId"},
	"Runtime.addBinding":                    {"executionContextId", "executionContextName"},
	"DOM.resolveNode":                       {"executionContextId"},
	"Page.createIsolatedWorld":              {"worldName"},
	"Page.addScriptToEvaluateOnNewDocument": {"worldName"},
}

// refusedMethods run code in, or hand out objects of, any world (a paused
// frame of wright's own scripts, any object on the heap).
var refusedMethods = map[string]string{
	"Debugger.evaluateOnCallFrame":         "it runs code in whichever world the paused frame belongs to",
	"Debugger.setVariableValue":            "it changes variables in whichever world the paused frame belongs to",
	"Debugger.setScriptSource":             "it rewrites scripts of any world, wright's own included",
	"Debugger.setReturnValue":              "it changes what a paused function of any world returns",
	"HeapProfiler.getObjectByHeapObjectId": "it hands out objects of any world, wright's own included",
}

// checkGuardedParams refuses what refusedParams and refusedMethods name,
// and a drag event that carries files (Input.dispatchDragEvent's
// data.files are paths on the driver's machine, which the page would get).
func checkGuardedParams(method string, params json.RawMessage) error {
	if why, ok := refusedMethods[method]; ok {
		return fmt.Errorf("%w: %s in a run: %s", cdpsession.ErrRefused, method, why)
	}
	names, watched := refusedParams[method]
	if !watched && method != "Input.dispatchDragEvent" {
		return nil
	}
	var p map[string]json.RawMessage
	if len(bytes.TrimSpace(params)) > 0 && string(params) != "null" {
		if err := json.Unmarshal(params, &p); err != nil {
			return fmt.Errorf("%w: %s: params: %v", cdpsession.ErrRefused, method, err)
		}
	}
	for _, n := range names {
		if v, ok := p[n]; ok && string(v) != "null" {
			return fmt.Errorf("%w: %s with %s in a run: code runs only in the page's own world", cdpsession.ErrRefused, method, n)
		}
	}
	if method == "Input.dispatchDragEvent" {
		var d struct {
			Files []string `json:"files"`
		}
		if raw, ok := p["data"]; ok && string(raw) != "null" {
			if err := json.Unmarshal(raw, &d); err != nil {
				return fmt.Errorf("%w: %s: data: %v", cdpsession.ErrRefused, method, err)
			}
		}
		if len(d.Files) > 0 {
			return fmt.Errorf("%w: %s with data.files in a run: they are files of the driver's machine; use set_input_files, whose paths the driver checks", cdpsession.ErrRefused, method)
		}
	}
	return nil
}
