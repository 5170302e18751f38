"""Runs two Python agent SDKs' own tool-schema conversion code, offline.

Usage: python3 check.py CLIENTS_DIR TOOLS.json
CLIENTS_DIR holds the unmodified sources of google-genai (python-genai/)
and the OpenAI Agents SDK (openai-agents-python/). Both SDKs reach MCP
through the Python MCP SDK, whose clientInfo name is "mcp", so only the
servers listed under that identity are read.

Prints one JSON line per (server, path, tool): {"server", "path", "tool",
"error", "before", "after"}: error is the exception a path raised (the tool
is refused), after the schema the path produced; check.mjs compares them
with the same rules as the npm paths.
"""

import copy
import json
import sys
import types as pytypes

clients_dir, tools_file = sys.argv[1], sys.argv[2]


def stand_in(name, **attrs):
    """Registers a module the SDKs import but whose code the checks never reach."""
    mod = pytypes.ModuleType(name)
    mod.__dict__.update(attrs)
    sys.modules[name] = mod
    return mod


class UserError(Exception):
    """Stands in for agents.exceptions.UserError."""


# Packages whose __init__ would import the SDKs' API clients: only their
# folders are registered, so the schema modules load on their own.
stand_in("google").__path__ = [clients_dir + "/python-genai/google"]
stand_in("google.genai").__path__ = [clients_dir + "/python-genai/google/genai"]
stand_in("google.genai._api_client", _MULTI_REGIONAL_LOCATIONS=[])
stand_in("httpx", Client=type("Client", (), {}), AsyncClient=type("AsyncClient", (), {}))
stand_in("openai", NOT_GIVEN=object())
stand_in("agents").__path__ = [clients_dir + "/openai-agents-python/src/agents"]
stand_in("agents.exceptions", UserError=UserError)

import importlib  # noqa: E402

genai_types = importlib.import_module("google.genai.types")
mcp_utils = importlib.import_module("google.genai._mcp_utils")
strict_schema = importlib.import_module("agents.strict_schema")


def genai_schema(tool):
    """Schema.from_json_schema with the Gemini API option, as documented."""
    s = genai_types.Schema.from_json_schema(
        json_schema=genai_types.JSONSchema(**copy.deepcopy(tool["inputSchema"])),
        api_option="GEMINI_API",
    )
    return s.model_dump(exclude_none=True, mode="json")


def genai_mcp(tool):
    """The SDK's MCP adapter, which a Gemini chat with an MCP session uses."""
    t = pytypes.SimpleNamespace(name=tool["name"], description=tool.get("description"),
                                inputSchema=copy.deepcopy(tool["inputSchema"]))
    decl = mcp_utils.mcp_to_gemini_tool(t).function_declarations[0]
    return decl.parameters.model_dump(exclude_none=True, mode="json")


def agents_strict(tool):
    """ensure_strict_json_schema, which the Agents SDK applies to MCP tools in strict mode."""
    return strict_schema.ensure_strict_json_schema(copy.deepcopy(tool["inputSchema"]))


PATHS = [("genai-py", genai_schema), ("genai-py-mcp", genai_mcp), ("openai-agents-py", agents_strict)]

with open(tools_file) as f:
    servers = json.load(f)["servers"]
for srv in servers:
    if srv["identity"] != "mcp":
        continue
    for name, fn in PATHS:
        for tool in srv["tools"] or []:
            row = {"server": srv["server"], "path": name, "tool": tool["name"], "before": tool["inputSchema"]}
            try:
                row["after"] = fn(tool)
            except Exception as e:  # every failure is the tool's refusal
                row["error"] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            if tool.get("description") and len(tool["description"]) > 1024:
                row["description"] = len(tool["description"])
            print(json.dumps(row))
