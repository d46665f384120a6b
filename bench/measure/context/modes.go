package main

import (
	"fmt"
	"math/rand"
	"strings"
	"time"

	"wright/env"
	"wright/env/live"
	"wright/env/workspace"
	"wright/run/templates"
)

// mode is what one kind of run puts into its history.
type mode struct {
	name          string
	system, task  string
	summaryPrompt string
	keepLast      int
	action        func(step int) string
	observe       func(step int) env.Observation
	render        func(env.Observation) (string, error)
}

const taskText = "Task kettle-042: on https://shop.test find the cheapest electric kettle that is red, holds at least 1.5 litres, " +
	"has a rating of 4 stars or more and costs under $40. Report its exact product name, price and the URL of its product page. " +
	"Use the site's own filters and sorting rather than reading every page, and make sure the answer is visible on screen at the end."

var tpl templates.Set

func workspaceMode(cfg config) mode {
	vars := map[string]any{
		"action_field": "bash_command", "command_timeout_seconds": 240, "workspace": "runs/kettle-042/workspace",
		"require_reflection": true, "task": taskText, "task_id": "kettle-042", "start_url": "https://shop.test", "step_limit": cfg.steps,
	}
	return mode{
		name:          "workspace",
		system:        must(tpl.Render("builtin:workspace_system.j2", vars)),
		task:          must(tpl.Render("builtin:workspace_instance.j2", vars)),
		summaryPrompt: must(tpl.Render("builtin:summary_workspace.j2", vars)),
		keepLast:      3,
		action: func(step int) string {
			return fmt.Sprintf(`{"thought":"Step %d. The grid is filled from /api/products; the last run showed the colour filter applied but the sort was lost after paging, so I check page %d with the filter and sort in the query and print the prices I get back.","bash_command":"python3 probe.py --page %d --colour red --sort price_asc 2>&1 | tee -a probe.log | tail -n 400","done":false,"final_response":""}`, step, step%7+1, step%7+1)
		},
		observe: func(step int) env.Observation {
			logPath, out := fmt.Sprintf("logs/step_%04d.log", step), commandOutput(step, cfg.outputChars)
			return env.Observation{
				Success:   true,
				Elapsed:   time.Duration(1800+step) * time.Millisecond,
				Output:    out,
				OutputKey: "command_output",
				LogPath:   logPath,
				Details: map[string]any{
					"returncode":         0,
					"timed_out":          false,
					"cwd":                "runs/kettle-042/workspace",
					"recent_files":       []string{"probe.py", "plan.md", "final_script.py"},
					"recent_screenshots": []string{fmt.Sprintf("screenshots/step_%04d.png", step)},
					"final_script":       "from wright_browser import launch\n\nwith launch() as browser:\n    page = browser.new_page()\n    page.goto(\"https://shop.test\")",
				},
				Prunable: map[string]string{"command_output": workspace.OutputPlaceholder(out, logPath)},
			}
		},
		render: func(obs env.Observation) (string, error) {
			return tpl.Render("builtin:workspace_observation.j2", map[string]any{"observation": obs.Flat(), "command_timeout_seconds": 240})
		},
	}
}

// liveMode renders with the live browser templates, with the variables
// and observation keys the agent and env/live give them (config
// local_browser.yaml: no self-reflection gate, keep_last 1).
func liveMode(cfg config) mode {
	vars := map[string]any{
		"action_field": "python_code", "mode": "browser", "step_timeout_seconds": 120, "workspace": "runs/kettle-042/workspace",
		"require_reflection": false, "task": taskText, "task_id": "kettle-042", "start_url": "https://shop.test", "step_limit": cfg.steps,
	}
	return mode{
		name:          "live",
		system:        must(tpl.Render("builtin:browser_system.j2", vars)),
		task:          must(tpl.Render("builtin:browser_instance.j2", vars)),
		summaryPrompt: must(tpl.Render("builtin:summary_browser.j2", vars)),
		keepLast:      1,
		action: func(step int) string {
			return fmt.Sprintf(`{"thought":"Step %d. The filter panel is open and Red is ticked; now I set the capacity filter and read the first result card to compare prices.","python_code":"page.get_by_role(\"checkbox\", name=\"1.5 L and more\").check()\npage.wait_for_load_state(\"networkidle\")\nprint(page.get_by_role(\"listitem\").first.inner_text())","done":false,"final_response":""}`, step)
		},
		observe: func(step int) env.Observation {
			url := fmt.Sprintf("https://shop.test/c/kettles?colour=red&capacity=1.5&page=%d", step%5+1)
			shot := fmt.Sprintf("screenshots/step_%04d.png", step)
			aria := ariaSnapshot(step, cfg.ariaChars)
			return env.Observation{
				Success:    true,
				Elapsed:    time.Duration(900+step) * time.Millisecond,
				Output:     "Red retro kettle 1.7 L\n$39.00\n4.5 out of 5 stars",
				OutputKey:  "python_output",
				Screenshot: "runs/kettle-042/workspace/" + shot,
				Notices:    []string{},
				Details: map[string]any{
					"exception":      "",
					"timed_out":      false,
					"console_output": "",
					"url":            url,
					"title":          "Kettles | Shop",
					"aria_snapshot":  aria,
					"screenshot":     shot,
					"tabs":           []map[string]any{{"index": 0, "id": "page-1", "url": url, "title": "Kettles | Shop", "current": true}},
					"restarted":      false,
					"restart_note":   "",
				},
				Prunable: map[string]string{"aria_snapshot": live.ARIAPlaceholder(aria)},
			}
		},
		render: func(obs env.Observation) (string, error) {
			return tpl.Render("builtin:browser_observation.j2", map[string]any{"observation": obs.Flat(), "step_timeout_seconds": 120})
		},
	}
}

func must(s string, err error) string {
	if err != nil {
		panic(fmt.Sprintf("render bench template: %v", err))
	}
	return s
}

var (
	productWords = []string{"Red", "Retro", "Steel", "Glass", "Electric", "Kettle", "Cordless", "Rapid", "Boil", "Classic", "Matte", "Compact", "Travel", "Smart", "Vintage", "Quiet"}
	paths        = []string{"/api/products", "/api/filters", "/c/kettles", "/static/app.js", "/api/reviews", "/p/"}
)

func productName(r *rand.Rand) string {
	return fmt.Sprintf("%s %s %s %.1f L", productWords[r.Intn(len(productWords))], productWords[r.Intn(len(productWords))], productWords[5+r.Intn(3)], 0.8+float64(r.Intn(10))/10)
}

// commandOutput is what a probing script prints: request logs, HTML
// fragments, parsed rows and now and then a traceback, as long as the
// environment's truncation allows.
func commandOutput(step, n int) string {
	r := rand.New(rand.NewSource(int64(step)*7919 + 1))
	var b strings.Builder
	for b.Len() < n {
		switch r.Intn(5) {
		case 0:
			fmt.Fprintf(&b, "[12:%02d:%02d] GET https://shop.test%s?page=%d&colour=red&sort=price_asc %d (%d ms)\n",
				r.Intn(60), r.Intn(60), paths[r.Intn(len(paths))], r.Intn(9)+1, []int{200, 200, 200, 304, 404}[r.Intn(5)], 80+r.Intn(2000))
		case 1:
			fmt.Fprintf(&b, "  <div class=\"card\" data-sku=\"KT-%04d\"><h3>%s</h3><span class=\"price\">$%d.%02d</span><span class=\"stars\">%d.%d</span></div>\n",
				r.Intn(10000), productName(r), 15+r.Intn(60), r.Intn(100), 2+r.Intn(3), r.Intn(10))
		case 2:
			fmt.Fprintf(&b, "row %3d | %-32s | $%6.2f | %.1f stars | %s\n", r.Intn(500), productName(r), 15+r.Float64()*60, 2+r.Float64()*3, []string{"in stock", "sold out", "2-3 days"}[r.Intn(3)])
		case 3:
			fmt.Fprintf(&b, "filter colour=red capacity>=%.1f rating>=%d -> %d results (page %d of %d)\n", 1+r.Float64(), 3+r.Intn(2), r.Intn(300), r.Intn(9)+1, 9)
		default:
			if r.Intn(6) == 0 {
				fmt.Fprintf(&b, "Traceback (most recent call last):\n  File \"probe.py\", line %d, in <module>\n    rows = parse(page.content())\n  File \"probe.py\", line %d, in parse\n    price = float(card.select_one('.price').text[1:])\nAttributeError: 'NoneType' object has no attribute 'text'\n", 40+r.Intn(40), 10+r.Intn(20))
			} else {
				fmt.Fprintf(&b, "wait_for_selector('.card:nth-child(%d)') resolved after %d ms\n", r.Intn(40)+1, r.Intn(900))
			}
		}
	}
	return b.String()[:n]
}

// ariaSnapshot is a product listing page as the browser's ARIA snapshot
// prints it, with refs on what can be acted on.
func ariaSnapshot(step, n int) string {
	r := rand.New(rand.NewSource(int64(step)*104729 + 2))
	ref := 0
	next := func() int { ref++; return ref }
	var b strings.Builder
	fmt.Fprintf(&b, "- banner:\n  - link \"Shop home\" [ref=e%d]:\n    - /url: /\n  - search:\n    - searchbox \"Search products\" [ref=e%d]\n    - button \"Search\" [ref=e%d]\n", next(), next(), next())
	fmt.Fprintf(&b, "- navigation \"Categories\":\n")
	for _, c := range []string{"Kettles", "Toasters", "Coffee machines", "Blenders", "Microwaves"} {
		fmt.Fprintf(&b, "  - link \"%s\" [ref=e%d]:\n    - /url: /c/%s\n", c, next(), strings.ToLower(strings.ReplaceAll(c, " ", "-")))
	}
	fmt.Fprintf(&b, "- main:\n  - heading \"Kettles\" [level=1]\n  - group \"Filters\":\n    - checkbox \"Red\" [checked] [ref=e%d]\n    - checkbox \"1.5 L and more\" [ref=e%d]\n    - combobox \"Sort by\" [ref=e%d]: Price, low to high\n  - list \"Results\":\n", next(), next(), next())
	for b.Len() < n {
		sku := r.Intn(10000)
		fmt.Fprintf(&b, "    - listitem:\n      - link \"%s\" [ref=e%d]:\n        - /url: /p/KT-%04d\n      - text: $%d.%02d\n      - img \"%d.%d out of 5 stars\"\n      - button \"Add to cart\" [ref=e%d]\n",
			productName(r), next(), sku, 15+r.Intn(60), r.Intn(100), 2+r.Intn(3), r.Intn(10), next())
	}
	return b.String()[:n]
}

// fakeSummary is a summary-shaped text of exactly n bytes.
func fakeSummary(n int) string {
	lines := []string{
		"Progress: the listing at /c/kettles is filled from /api/products?page=N&colour=red&sort=price_asc; the colour filter holds across pages, the sort does not unless it is in the query.",
		"Dead ends: clicking Next loses the sort; scraping the HTML fails on sold-out cards (no .price element).",
		"Files: probe.py prints one row per product; plan.md lists the critical points; final_script.py applies the filters and reads page 1.",
		"final_runs: run_1 finished, 3 screenshots, judge said the sort was not visible; run_2 pending.",
		"Next steps: put the sort in the URL, re-run final_script.py into final_runs/run_2, check the screenshots, ask the judge.",
	}
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString(lines[i%len(lines)])
		b.WriteByte('\n')
	}
	return b.String()[:n]
}
