package main

// script is the scripted model's 40 steps on the kitchensink actions page:
// fills, clicks, checks, selects and reads, with two navigations (to the
// querying page at step 21, back at step 26). Every step is Playwright the
// way a model writes it; each must succeed on kitchensink 7.0.0.
func script(base string) []string {
	actions := base + "/commands/actions.html"
	querying := base + "/commands/querying.html"
	return []string{
		"print(page.title())",
		"page.locator('.action-email').fill('fake@email.com')",
		"page.locator('.action-focus').focus()",
		"page.locator('.action-blur').fill('About to blur')\npage.locator('.action-blur').blur()",
		"page.locator('.action-clear').fill('Clear this text')",
		"page.locator('.action-clear').fill('')",
		"page.locator('#couponCode1').fill('HALFOFF')",
		"page.locator('.action-form button').click()",
		"page.locator('.action-btn').click()",
		"page.locator('#action-canvas').click(position={'x': 80, 'y': 75})",
		"page.locator('.action-div').dblclick()",
		"page.locator('.rightclick-action-div').click(button='right')",
		"page.locator('.action-checkboxes [type=checkbox]').first.check()",
		"page.locator('.action-multiple-checkboxes [type=checkbox]').nth(1).check()",
		"page.locator('.action-radios [type=radio]').first.check()",
		"page.locator('.action-check [type=checkbox]').first.uncheck()",
		"page.locator('.action-select').select_option('apples')",
		"page.locator('.action-select-multiple').select_option(['apples', 'bananas'])",
		"print(page.locator('.action-email').input_value())",
		"print(page.locator('.action-select').input_value())",
		"page.goto('" + querying + "')",
		"page.locator('#query-btn').click()",
		"print(page.locator('.query-list li').count())",
		"page.locator('#inputEmail').fill('query@example.com')",
		"print(page.locator('[data-test-id=test-example]').inner_text())",
		"page.goto('" + actions + "')",
		"page.locator('.action-email').fill('again@email.com')",
		"page.locator('#couponCode1').fill('SPRING')",
		"page.locator('.action-form button').click()",
		"page.locator('.action-checkboxes [type=checkbox]').nth(2).check()",
		"page.locator('.action-radios [type=radio]').nth(1).check()",
		"page.locator('.action-select').select_option('oranges')",
		"page.locator('#scroll-horizontal button').scroll_into_view_if_needed()",
		"page.locator('.action-blur').fill('Second name')",
		"page.locator('.action-clear').fill('Short note')",
		"print(page.locator('.action-form').inner_text())",
		"page.locator('.action-multiple-checkboxes [type=checkbox]').nth(2).check()",
		"page.locator('.action-check [type=checkbox]').nth(2).uncheck()",
		"print(page.locator('.action-checkboxes [type=checkbox]').nth(2).is_checked())",
		"print(page.url)",
	}
}
