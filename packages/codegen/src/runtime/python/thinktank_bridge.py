"""The code API's Python runtime: how a generated wrapper reaches an MCP tool from inside the sandbox.

Copied verbatim to <code API>/python/thinktank_bridge.py; standard library only (Python 3.11+).
Protocol (docs/code-api.md): HTTP/1.1 ``POST /call`` over the Unix socket named by
THINKTANK_BRIDGE_SOCKET, with ``authorization: Bearer $THINKTANK_BRIDGE_TOKEN``.
"""

import http.client
import json
import os
import socket
import sys
from typing import Any, Optional

__all__ = ["MCPToolError", "call_mcp_tool", "call_mcp_tool_raw", "tool_result_value"]


class MCPToolError(Exception):
    """A failed tool call.

    ``code`` is the bridge's error code (UNAUTHORIZED, TOOL_NOT_FOUND, VALIDATION_FAILED,
    SERVICE_UNAVAILABLE, ...), TOOL_ERROR when the tool reported the failure, or one of
    BRIDGE_NOT_CONFIGURED, BRIDGE_UNREACHABLE, BRIDGE_PROTOCOL_ERROR from this runtime.
    ``status`` is the bridge's HTTP status when it answered; ``content`` the tool's content
    blocks for TOOL_ERROR.
    """

    def __init__(self, code: str, message: str, server: str, tool: str,
                 status: Optional[int] = None, content: Optional[list] = None):
        super().__init__(f"{server}.{tool}: {message}")
        self.code = code
        self.message = message
        self.server = server
        self.tool = tool
        self.status = status
        self.content = content


class _UnixHTTPConnection(http.client.HTTPConnection):
    """An HTTP connection over a Unix domain socket (the sandbox has no network, only this socket)."""

    def __init__(self, socket_path: str):
        super().__init__("localhost")
        self._socket_path = socket_path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(self._socket_path)
        except OSError:
            sock.close()
            raise
        self.sock = sock


def _post(socket_path: str, token: str, payload: bytes, server: str, tool: str) -> tuple:
    connection = _UnixHTTPConnection(socket_path)
    try:
        connection.request("POST", "/call", body=payload, headers={
            "content-type": "application/json",
            "authorization": f"Bearer {token}",
        })
        response = connection.getresponse()
        return response.status, response.read()
    except OSError as error:
        raise MCPToolError("BRIDGE_UNREACHABLE", f"cannot reach the bridge at {socket_path}: {error}",
                           server, tool) from error
    except http.client.HTTPException as error:
        raise MCPToolError("BRIDGE_PROTOCOL_ERROR", f"the bridge answered something that is not HTTP: {error}",
                           server, tool) from error
    finally:
        connection.close()


def _post_from_pyodide(socket_path: str, token: str, payload: bytes, server: str, tool: str) -> tuple:
    """Pyodide (the deno sandbox) has no sockets: its host runtime makes the same request to the bridge."""
    try:
        from _thinktank_host import post_bridge  # provided by the deno sandbox's bootstrap
        from pyodide.ffi import run_sync
        status, text = run_sync(post_bridge(socket_path, token, payload.decode("utf-8")))
    except ImportError as error:
        raise MCPToolError("BRIDGE_NOT_CONFIGURED", "this Pyodide has no bridge (run the program through execute_code)",
                           server, tool) from error
    except Exception as error:
        raise MCPToolError("BRIDGE_UNREACHABLE", f"cannot reach the bridge at {socket_path}: {error}",
                           server, tool) from error
    return int(status), str(text).encode("utf-8")


def call_mcp_tool(server: str, tool: str, arguments: Optional[dict] = None, *,
                  socket_path: Optional[str] = None, token: Optional[str] = None) -> Any:
    """Calls a tool and returns its value.

    The value is the tool's structuredContent when it sent one; otherwise its content blocks,
    where a text block holding a JSON object or array is parsed, other text is the string itself,
    another block (an image, a resource) is the block as a dict, and several blocks give a list
    with one such value per block (no block gives None).

    Raises:
        MCPToolError: the tool reported an error (code TOOL_ERROR) or the bridge refused the call.
    """
    result = call_mcp_tool_raw(server, tool, arguments, socket_path=socket_path, token=token)
    if result["isError"]:
        blocks = result["content"]
        message = "\n".join(b["text"] if isinstance(b.get("text"), str) else f"[{b.get('type')}]" for b in blocks)
        raise MCPToolError("TOOL_ERROR", message or "the tool reported an error", server, tool, content=blocks)
    return tool_result_value(result)


def tool_result_value(result: dict) -> Any:
    """The value call_mcp_tool returns for a raw result (for code that uses call_mcp_tool_raw)."""
    structured = result.get("structuredContent")
    if structured is not None:
        return structured
    values = [_block_value(block) for block in result.get("content", [])]
    if not values:
        return None
    return values[0] if len(values) == 1 else values


def _block_value(block: Any) -> Any:
    if not isinstance(block, dict) or block.get("type") != "text" or not isinstance(block.get("text"), str):
        return block
    text = block["text"]
    trimmed = text.strip()
    if trimmed.startswith("{") or trimmed.startswith("["):
        try:
            return json.loads(trimmed)
        except ValueError:
            return text
    return text


def call_mcp_tool_raw(server: str, tool: str, arguments: Optional[dict] = None, *,
                      socket_path: Optional[str] = None, token: Optional[str] = None) -> dict:
    """Calls a tool and returns the bridge's answer as it came: ``isError``, ``structuredContent``
    (when sent) and ``content``. Raises MCPToolError only when the call did not reach the tool."""
    socket_path = socket_path or os.environ.get("THINKTANK_BRIDGE_SOCKET")
    token = token or os.environ.get("THINKTANK_BRIDGE_TOKEN")
    if not socket_path or not token:
        raise MCPToolError("BRIDGE_NOT_CONFIGURED",
                           "THINKTANK_BRIDGE_SOCKET and THINKTANK_BRIDGE_TOKEN must be set "
                           "(run the program through execute_code)", server, tool)
    payload = json.dumps({"server": server, "tool": tool, "arguments": arguments or {}}).encode("utf-8")
    if sys.platform == "emscripten":
        status, body = _post_from_pyodide(socket_path, token, payload, server, tool)
    else:
        status, body = _post(socket_path, token, payload, server, tool)
    try:
        answer = json.loads(body.decode("utf-8"))
    except ValueError as error:
        raise MCPToolError("BRIDGE_PROTOCOL_ERROR", f"the bridge answered HTTP {status} with a body that is not JSON",
                           server, tool, status=status) from error
    if not isinstance(answer, dict):
        raise MCPToolError("BRIDGE_PROTOCOL_ERROR", f"the bridge answered HTTP {status} with a body that is not an object",
                           server, tool, status=status)
    if answer.get("ok") is not True:
        error = answer.get("error") if isinstance(answer.get("error"), dict) else {}
        code = error.get("code") if isinstance(error.get("code"), str) else "BRIDGE_PROTOCOL_ERROR"
        message = error.get("message") if isinstance(error.get("message"), str) else f"the bridge refused the call with HTTP {status}"
        raise MCPToolError(code, message, server, tool, status=status)
    result = {"isError": answer.get("isError") is True,
              "content": answer.get("content") if isinstance(answer.get("content"), list) else []}
    if "structuredContent" in answer:
        result["structuredContent"] = answer["structuredContent"]
    return result
