// Package console holds the support console's browser test: headless
// Chromium, driven with chromedp, which only this module requires.
package console
