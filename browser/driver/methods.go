package driver

import (
	"wright/browser"
)

// method is one method of the protocol. Its handler is a named function
// wrapped in the adapter for what the method acts on, which also says how
// it takes a timeout: onBrowser (the browser), onPage (a page), onPageTimed
// (a page, with a "timeout"), onLocator (a page's locator, with a
// "timeout"), onContext (a browser context), or none (the handler reads its
// params itself).
type method struct {
	handle handler
	// quiet: the method causes no event the client must see before its
	// answer, so the answer is not held back until the page's events are
	// delivered (conn.flushEvents).
	quiet bool
}

// methods is the protocol: every method, its handler and its attributes,
// in one literal. It is only read.
var methods = map[string]method{
	// The browser and its contexts.
	"browser.launch":            {handle: browserLaunch, quiet: true},
	"browser.new_page":          {handle: onBrowser(browserNewPage), quiet: true},
	"browser.pages":             {handle: onBrowser(browserPages), quiet: true},
	"browser.close":             {handle: browserClose, quiet: true},
	"context.accept_downloads":  {handle: contextAcceptDownloads, quiet: true},
	"browser.new_context":       {handle: onContext(browserNewContext), quiet: true},
	"context.close":             {handle: onContext(contextClose), quiet: true},
	"context.new_page":          {handle: onContext(contextNewPage), quiet: true},
	"context.cookies":           {handle: onContext(contextCookies), quiet: true},
	"context.add_cookies":       {handle: onContext(contextAddCookies), quiet: true},
	"context.clear_cookies":     {handle: onContext(contextClearCookies), quiet: true},
	"context.grant_permissions": {handle: onContext(contextGrantPermissions), quiet: true},
	"context.set_defaults":      {handle: onContext(contextSetDefaults), quiet: true},
	"context.set_script":        {handle: onContext(contextSetScript), quiet: true},
	"selectors.register":        {handle: selectorsRegister, quiet: true},
	"clock.source":              {handle: clockSource, quiet: true},
	"browser.start_tracing":     {handle: browserStartTracing, quiet: true},
	"browser.stop_tracing":      {handle: browserStopTracing, quiet: true},

	// Playwright traces (tracing_methods.go).
	"tracing.start":       {handle: tracingStart, quiet: true},
	"tracing.start_chunk": {handle: tracingStartChunk, quiet: true},
	"tracing.stop_chunk":  {handle: tracingStopChunk, quiet: true},
	"tracing.stop":        {handle: tracingStop, quiet: true},
	"tracing.group":       {handle: tracingGroup, quiet: true},
	"tracing.group_end":   {handle: tracingGroupEnd, quiet: true},
	"tracing.before":      {handle: tracingBefore, quiet: true},
	"tracing.after":       {handle: tracingAfter, quiet: true},

	// HAR: recording a context's traffic, and answering requests from an archive.
	"har.record_start":  {handle: harRecordStart, quiet: true},
	"har.record_export": {handle: harRecordExport, quiet: true},
	"har.open":          {handle: harOpen, quiet: true},
	"har.lookup":        {handle: harLookup, quiet: true},
	"har.close":         {handle: harClose, quiet: true},

	// Events: the connection's subscription, and answers to the events that wait for the client.
	"page.resolve_locator_handler": {handle: onPage(pageResolveLocatorHandler)},
	"events.subscribe":             {handle: eventsSubscribe, quiet: true},
	"events.unsubscribe":           {handle: eventsUnsubscribe, quiet: true},
	"page.dialog_answer":           {handle: onPage(pageDialogAnswer), quiet: true},
	"page.binding_result":          {handle: onPage(pageBindingResult), quiet: true},

	// Navigation and the page's state.
	"page.goto":                {handle: onPageTimed(pageGoto)},
	"page.reload":              {handle: onPageTimed(pageReload)},
	"page.go_back":             {handle: onPageTimed(pageGoBack)},
	"page.go_forward":          {handle: onPageTimed(pageGoForward)},
	"page.url":                 {handle: pageURL, quiet: true},
	"page.title":               {handle: onPage(pageTitle)},
	"page.content":             {handle: onPage(pageContent)},
	"page.bring_to_front":      {handle: onPage(pageBringToFront)},
	"page.close":               {handle: closePage, quiet: true},
	"page.wait_for_load_state": {handle: onPageTimed(pageWaitForLoadState)},
	"page.wait_for_url":        {handle: onPage(pageWaitForURL)},
	"page.wait_for_selector":   {handle: onLocator(pageWaitForSelector)},
	"page.console_messages":    {handle: onPage(pageConsoleMessages), quiet: true},
	"page.page_errors":         {handle: onPage(pagePageErrors), quiet: true},
	"page.dialogs":             {handle: onPage(pageDialogs), quiet: true},
	"page.close_before_unload": {handle: onPage(pageCloseBeforeUnload)},

	// Frames.
	"page.frame_owner": {handle: onPage(pageFrameOwner)},
	"page.frame_tree":  {handle: onPage(pageFrameTree)},
	"page.node_frames": {handle: onPage(pageNodeFrames)},
	"page.frame_goto":  {handle: onPageTimed(pageFrameGoto)},

	// Emulation.
	"page.set_viewport_size":    {handle: onPage(pageSetViewportSize)},
	"page.emulate_media":        {handle: onPage(pageEmulateMedia)},
	"page.ignore_https_errors":  {handle: onPage(pageIgnoreHTTPSErrors)},
	"page.set_http_credentials": {handle: onPage(pageSetHTTPCredentials)},
	"page.emulate":              {handle: onPage(pageEmulate)},

	// Keyboard and mouse.
	"page.keyboard.press":       {handle: onPage(pageKeyboardPress)},
	"page.keyboard.type":        {handle: onPage(pageKeyboardType)},
	"page.mouse.click":          {handle: onPage(pageMouseClick)},
	"page.mouse.move":           {handle: onPage(pageMouseMove)},
	"page.mouse.wheel":          {handle: onPage(pageMouseWheel)},
	"page.keyboard.down":        {handle: onPage(pageKeyboardDown)},
	"page.keyboard.up":          {handle: onPage(pageKeyboardUp)},
	"page.keyboard.insert_text": {handle: onPage(pageKeyboardInsertText)},
	"page.mouse.down":           {handle: onPage(pageMouseDown)},
	"page.mouse.up":             {handle: onPage(pageMouseUp)},
	"page.mouse.move_steps":     {handle: onPage(pageMouseMoveSteps)},
	"page.touchscreen.tap":      {handle: onPage(pageTouchscreenTap)},

	// Locators: actions, reads and waits.
	"locator.click":                      {handle: onLocator(locatorClick)},
	"locator.dblclick":                   {handle: onLocator(locatorDblClick)},
	"locator.tap":                        {handle: onLocator(locatorTap)},
	"locator.fill":                       {handle: onLocator(locatorFill)},
	"locator.press":                      {handle: onLocator(locatorPress)},
	"locator.press_sequentially":         {handle: onLocator(locatorPressSequentially)},
	"locator.check":                      {handle: onLocator(locatorCheck)},
	"locator.uncheck":                    {handle: onLocator(locatorUncheck)},
	"locator.set_checked":                {handle: onLocator(locatorSetChecked)},
	"locator.select_option":              {handle: onLocator(locatorSelectOption)},
	"locator.hover":                      {handle: onLocator(locatorHover)},
	"locator.focus":                      {handle: plain(locatorFocus)},
	"locator.scroll_into_view_if_needed": {handle: plain(locatorScrollIntoView)},
	"locator.inner_text":                 {handle: plain(locatorInnerText)},
	"locator.text_content":               {handle: plain(locatorTextContent)},
	"locator.inner_html":                 {handle: plain(locatorInnerHTML)},
	"locator.input_value":                {handle: plain(locatorInputValue)},
	"locator.get_attribute":              {handle: onLocator(locatorGetAttribute)},
	"locator.is_visible":                 {handle: plain(locatorIs("visible"))},
	"locator.is_hidden":                  {handle: plain(locatorIs("hidden"))},
	"locator.is_enabled":                 {handle: plain(locatorIs("enabled"))},
	"locator.is_disabled":                {handle: plain(locatorIs("disabled"))},
	"locator.is_editable":                {handle: plain(locatorIs("editable"))},
	"locator.is_checked":                 {handle: plain(locatorIs("checked"))},
	"locator.count":                      {handle: plain(locatorCount)},
	"locator.all_inner_texts":            {handle: plain(locatorAllInnerTexts)},
	"locator.all_text_contents":          {handle: plain(locatorAllTextContents)},
	"locator.wait_for":                   {handle: onLocator(locatorWaitFor)},
	"locator.bounding_box":               {handle: plain(locatorBoundingBox)},
	"locator.evaluate":                   {handle: onLocator(locatorEvaluate)},

	// Locator handlers.
	"page.add_locator_handler":    {handle: onPage(pageAddLocatorHandler)},
	"page.remove_locator_handler": {handle: onPage(pageRemoveLocatorHandler)},
	"page.run_locator_handlers":   {handle: onPageTimed(pageRunLocatorHandlers)},

	// Evaluation, handles, init scripts and bindings.
	"page.evaluate":           {handle: onPageTimed(pageEvaluate)},
	"page.remove_init_script": {handle: onPage(pageRemoveInitScript)},
	"js.call":                 {handle: onPageTimed(jsCall)},
	"js.dispose":              {handle: onPage(jsDispose), quiet: true},
	"locator.element_handles": {handle: onLocator(locatorElementHandles)},
	"locator.evaluate_all":    {handle: onLocator(locatorEvaluateAll)},
	"page.add_init_script":    {handle: onPage(pageAddInitScript)},
	"page.expose_binding":     {handle: onPage(pageExposeBinding)},
	"page.request_gc":         {handle: onPage(pageRequestGC)},

	// Network: routing, responses, API requests.
	"request.fetch":            {handle: onPageTimed(requestFetch), quiet: true},
	"network.response_body":    {handle: onPage(networkResponseBody), quiet: true},
	"page.set_routing":         {handle: onPage(pageSetRouting), quiet: true},
	"route.continue":           {handle: onPage(routeContinue), quiet: true},
	"route.fulfill":            {handle: onPage(routeFulfill), quiet: true},
	"route.abort":              {handle: onPage(routeAbort), quiet: true},
	"context.fetch":            {handle: onContext(contextFetch), quiet: true},
	"apirequest.new":           {handle: apiRequestNew, quiet: true},
	"apirequest.fetch":         {handle: apiRequestFetch, quiet: true},
	"apirequest.storage_state": {handle: apiRequestStorageState, quiet: true},
	"apirequest.dispose":       {handle: apiRequestDispose, quiet: true},
	"apirequest.har_start":     {handle: apiRequestHARStart, quiet: true},
	"apirequest.har_export":    {handle: apiRequestHARExport, quiet: true},
	"websocket.check":          {handle: onPage(websocketCheck), quiet: true},

	// Files and downloads.
	"locator.drag_to":             {handle: onLocator(locatorDragTo)},
	"locator.set_input_files":     {handle: onLocator(locatorSetInputFiles)},
	"page.intercept_file_chooser": {handle: onPage(pageInterceptFileChooser)},
	"download.wait":               {handle: downloadWait, quiet: true},
	"download.save_as":            {handle: downloadSaveAs, quiet: true},

	// Screencast frames and videos (screencast_methods.go).
	"page.video_start":      {handle: onPage(pageVideoStart), quiet: true},
	"page.video_save_as":    {handle: onRecordedPage(pageVideoSaveAs), quiet: true},
	"page.video_delete":     {handle: onRecordedPage(pageVideoDelete), quiet: true},
	"page.screencast_start": {handle: pageScreencastStart, quiet: true},
	"page.screencast_ack":   {handle: pageScreencastAck, quiet: true},
	"page.screencast_stop":  {handle: pageScreencastStop, quiet: true},
	"download.cancel":       {handle: downloadDo((*browser.Download).Cancel), quiet: true},
	"download.delete":       {handle: downloadDo((*browser.Download).Delete), quiet: true},

	// Raw CDP sessions (guarded in a run: cdpsession.Allowed).
	"cdp.new_session": {handle: cdpNewSession, quiet: true},
	"cdp.send":        {handle: cdpSend},
	"cdp.detach":      {handle: cdpDetach, quiet: true},

	// Screenshots and ARIA snapshots.
	"page.screenshot":       {handle: onPage(pageScreenshot)},
	"page.aria_snapshot":    {handle: onPageTimed(pageAriaSnapshot)},
	"locator.screenshot":    {handle: onLocator(locatorScreenshot)},
	"locator.aria_snapshot": {handle: onLocator(locatorAriaSnapshot)},
	"page.pdf":              {handle: onPage(pagePDF)},
}
