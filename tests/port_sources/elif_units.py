# `if`/`elif` chains whose branches' statements are units of their own (ast_pairs.UnitPairs):
# a fix in one branch builds that branch's statement, the chain only for what is on its lines.
import json


def dispatch(name, arguments):
    if name == "list":
        rows = arguments.get("rows", [])
        return json.dumps({"rows": rows})
    elif name == "get":  # a comment after the colon
        try:
            return json.dumps(arguments["id"])
        except KeyError as error:
            return {"error": str(error)}
    # a comment between two branches
    elif name == "put": return {"error": "read only"}
    elif (
        name == "delete"
        and arguments
    ):
        raise ValueError(f"cannot delete {arguments!r}")
    else:
        if arguments:  # an `if` alone in an `else:` block: no `elif`
            return {"error": f"unknown tool {name}"}
        elif name:
            return {"error": "no arguments"}
    return None


def nested(kind, value):
    if kind == 1:
        pass
    elif kind == 2:
        if value:
            return {"error": "two"}
        elif value is None:
            for item in value:
                print(item)
        else:
            value = [
                "a",
                "b",
            ]
    elif kind == 3:
        while value:
            value -= 1
    else:
        return {"error": "kind"}
    return value


class Handler:
    def run(self, request):
        if request.method == "GET": return self.get(request)
        elif request.method == "POST":
            with open(request.path) as handle:
                return handle.read()
        elif request.method == "DELETE": pass
        else: raise RuntimeError("method")
