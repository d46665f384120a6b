# Reads a script's interface without running it: the argparse options it
# declares and the parameters of its top-level run(). Standard library only;
# the script's path is argv[1], the answer one JSON object on stdout.
import ast
import json
import sys

src = open(sys.argv[1], encoding="utf-8").read()
tree = ast.parse(src)

# Module-level NAME = <literal>, so `default=BOOK` reads as BOOK's value.
consts = {}
for node in tree.body:
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        try:
            consts[node.targets[0].id] = ast.literal_eval(node.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            pass

NOTHING = object()


def value(node):
    if isinstance(node, ast.Name) and node.id in consts:
        return consts[node.id]
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return NOTHING


def type_name(node):
    if isinstance(node, ast.Name) and node.id in ("int", "float", "str", "bool"):
        return node.id
    if isinstance(node, ast.Constant) and node.value in ("int", "float", "str", "bool"):
        return node.value
    return ""


def of_value(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "str"
    return ""


run_params = []
for node in tree.body:
    if isinstance(node, ast.FunctionDef) and node.name == "run":
        a = node.args
        plain = a.posonlyargs + a.args
        defaults = [NOTHING] * (len(plain) - len(a.defaults)) + list(a.defaults)
        pairs = list(zip(plain, defaults)) + list(zip(a.kwonlyargs, a.kw_defaults))
        for arg, d in pairs:
            if arg.arg in ("self", "page", "browser", "context", "run_dir"):
                continue
            dv = value(d) if d is not NOTHING and d is not None else NOTHING
            run_params.append({
                "name": arg.arg,
                "type": type_name(arg.annotation) if arg.annotation is not None else "",
                "default": None if dv is NOTHING else dv,
                "has_default": d is not NOTHING,
            })

options = []
for node in ast.walk(tree):
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument"):
        continue
    names = [value(a) for a in node.args]
    names = [n for n in names if isinstance(n, str)]
    if not names:
        continue
    kw = {k.arg: k.value for k in node.keywords if k.arg}
    longs = [n for n in names if n.startswith("--")]
    flag = longs[0] if longs else (names[0] if names[0].startswith("-") else "")
    if flag in ("-h", "--help"):
        continue
    dest = value(kw["dest"]) if "dest" in kw else NOTHING
    if not isinstance(dest, str):
        dest = (flag.lstrip("-") if flag else names[0]).replace("-", "_")
    action = value(kw["action"]) if "action" in kw else ""
    typ = type_name(kw["type"]) if "type" in kw else ""
    default = value(kw["default"]) if "default" in kw else NOTHING
    if action in ("store_true", "store_false", "store_const", "count", "help", "version", "append", "extend", "append_const"):
        if action not in ("store_true", "store_false"):
            continue
        typ = "bool"
        if default is NOTHING:
            default = action == "store_false"
    required = value(kw["required"]) is True if "required" in kw else False
    nargs = value(kw["nargs"]) if "nargs" in kw else NOTHING
    if not flag and nargs not in ("?", "*"):
        required = True
    helptext = value(kw["help"]) if "help" in kw else ""
    choices = value(kw["choices"]) if "choices" in kw else NOTHING
    options.append({
        "name": dest,
        "flag": flag,
        "type": typ,
        "default": None if default is NOTHING else default,
        "has_default": default is not NOTHING and default is not None,
        "required": bool(required),
        "help": helptext if isinstance(helptext, str) else "",
        "action": action if isinstance(action, str) else "",
        "choices": list(choices) if isinstance(choices, (list, tuple)) else None,
    })

by_name = {p["name"]: p for p in run_params}
params = []
for o in options:
    p = by_name.get(o["name"], {})
    typ = o["type"] or p.get("type") or of_value(o["default"]) or of_value(p.get("default")) or "str"
    default = o["default"]
    if default is None and p.get("has_default") and not o["required"]:
        default = p.get("default")
    o["type"] = typ
    o["default"] = default
    o["has_default"] = default is not None
    params.append(o)

print(json.dumps({
    "argparse": bool(options) or "argparse" in src,
    "run": any(isinstance(n, ast.FunctionDef) and n.name == "run" for n in tree.body),
    "run_params": run_params,
    "params": params,
}))
