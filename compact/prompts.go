package compact

// The default summary prompts, one per mode. They are plain text on purpose
// (no template syntax) so they can move into templates/ unchanged. The model
// reads them as the last user message of a history it is about to lose, so
// they say what survives (system prompt, task, the live browser) and ask for
// exactly what the next step needs.

// WorkspaceSummaryPrompt asks for a summary in workspace mode, where the
// model builds final_script.py and proves it with final runs.
const WorkspaceSummaryPrompt = `Stop working on the task for this one turn: the conversation is about to be shortened.
Everything after the task statement will be deleted and replaced by the summary you write now, so whatever you leave out is gone for good.
The task statement is kept word for word, and the workspace and its files stay as they are: do not restate the task, record what you learned.

Answer with the summary as plain text: no JSON action, no command, no code fence around the whole answer. Use these headings:

Progress: what you have tried so far, in order, and what each attempt showed. Keep every finding that cost effort to get: URLs, selectors and locators that work, login or navigation steps, API endpoints, page quirks, waits that were needed.
Dead ends: approaches that failed and the reason, so they are not tried again.
Files: every file you wrote or changed in the workspace (path and purpose), and whether it is still current.
final_script.py: its current state. What it does, which parts of the task it covers, what is missing or known to be broken.
final_runs: each run so far (final_runs/run_<N>): whether the script finished, what its log and screenshots showed, and the judge's verdict if there is one.
Next steps: what remains to be done, in order, starting with the very next command you will run.

If the conversation already holds an earlier summary, fold it into this one: yours replaces it.
Be specific: exact paths, commands, selectors, error messages, numbers. Leave out raw command output unless a line of it is itself the finding. Never report a result you have not seen.`

// LiveSummaryPrompt asks for a summary in live mode, where the model drives
// one browser through a persistent Python session and the page state is
// most of what it knows.
const LiveSummaryPrompt = `Stop working on the task for this one turn: the conversation is about to be shortened.
Everything after the task statement will be deleted and replaced by the summary you write now, so whatever you leave out is gone for good.
The task statement is kept word for word. The browser stays exactly as it is (tabs, page, form contents) and so do the variables of your Python session: only your memory of them is shortened.

Answer with the summary as plain text: no JSON action, no code, no code fence around the whole answer. Use these headings:

Browser state: the URL and title of every open tab and which one is active; any dialog, menu, panel or popup that is open; filters, sorting, search terms and pagination that are applied; values typed or selected in forms that are not submitted yet; whether you are logged in and as whom.
Progress: what you have done so far and what it showed, in order. Write down every piece of information already collected for the answer, with exact values.
What works: ways of finding and operating elements that proved reliable on this site. Name elements by role and accessible name or label, not by [ref=...]: refs go stale, take a fresh snapshot before using one. List the Python variables and helpers you defined that are still useful.
Dead ends: approaches that failed and the reason, so they are not tried again.
Next steps: what remains to be done, in order, starting with the very next action.

If the conversation already holds an earlier summary, fold it into this one: yours replaces it.
Be specific: exact URLs, names, values, error messages. Never report something you have not seen on the page.`
