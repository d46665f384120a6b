// Package launcher finds a Chrome or Chromium on this machine (config,
// WRIGHT_BROWSER, PATH, the usual install folders) and starts it with the
// flags a headless, sandbox-friendly run needs. It never downloads a browser.
package launcher
