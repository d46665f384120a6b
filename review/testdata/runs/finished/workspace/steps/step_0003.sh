cat > plan.md <<'EOF'
# Plan
1. Open the shop's home page.
2. Search for "Go Programming" (critical point: the results list shows the book).
3. Open "The Go Programming Language" (critical point: the book page shows its price).
4. Report the price.
EOF
cat > self_reflect_config.json <<'EOF'
{
  "image_judge_system_prompt": "You check screenshots of a browser automation run for a bookshop task.",
  "image_judge_user_prompt": "Task: find the price of the book \"The Go Programming Language\" on Quire Books. Does this screenshot show a correct step towards that? Answer with 'Score: N' (1-5) and 'Reasoning: ...'.",
  "final_verdict_system_prompt": "You decide whether a browser automation run achieved its task.",
  "final_verdict_user_prompt": "Task: find the price of \"The Go Programming Language\".\n\nAction log:\n{action_history_log}\n\nScreenshot assessments:\n{image_reasonings}\n\nDid the run find and report the right price? End with 'Status: success' or 'Status: failure'."
}
EOF
ls
