/** The text of `skiff --help`. */
export const HELP_TEXT = `skiff: a local coding agent as a headless service

Usage:
  skiff --listen <host:port> [options]
  skiff --mode rpc [options]

Starts the control plane over HTTP and WebSocket (/ws, /rpc) and serves the web chat client at /web.
Ctrl-C or SIGTERM stops any run, records every session and exits. Standard input is never read.

With --mode rpc there is no listener: one client speaks the protocol over standard input and output,
one JSON command per line in, one response or event per line out (pi's RPC mode; pi's RpcClient works
unchanged). Standard output carries only those lines; everything else goes to standard error. The end
of standard input, or SIGTERM, stops any run, records every session and exits 0.

Listener:
  --listen <host:port>              Bind address, e.g. 127.0.0.1:8787 or [::1]:8787 (port 0: any free port).
                                    Non-loopback addresses need --listen-allow-insecure-remote.
  --listen-token-file <path>        Require this bearer token (file content, trimmed) on /ws and /rpc:
                                    header "Authorization: Bearer <token>" or WebSocket subprotocol
                                    "skiff-auth.<token>". /web never needs it.
  --listen-allow-insecure-remote    Allow a non-loopback bind. There is no TLS: traffic (and the token)
                                    travels in plaintext.
  --listen-advertised-origin <url>  Origin for collaboration links, e.g. http://host.lan:8787
                                    (http/https origin only: no credentials, path, query or fragment).

Mode:
  --mode rpc                        Talk over standard input and output instead of a listener.

Agent:
  --model <provider/id>             Model for new sessions (built-in, or from <agent-dir>/models.json).
  --provider <name>                 With --model <id>: the model's provider (pi's form of --model).
  --thinking <level>                off, minimal, low, medium, high or xhigh (clamped to the model).
  -C, --cwd <dir>                   Working directory of the agent (default: the current directory).
  --max-sessions <n>                Sessions kept loaded at once (default 8); idle ones are unloaded first.

Session at start-up (choose one; default: a new session):
  -c, --continue                    Continue the newest session of this working directory.
  -r, --resume <id|prefix|path>     Open a recorded session.
  --session <id|prefix|path>        Same as --resume.
  --session-id <id>                 Open the session with this id, or create it with this id.
  --no-session                      Keep the conversation in memory only (nothing is recorded).

Other:
  -h, --help                        Show this help.
  -v, --version                     Show the version.

Environment:
  SKIFF_AGENT_DIR      Agent directory (default ~/.skiff/agent): auth.json, models.json, settings.json,
                       sessions/ (pi v3 JSONL files). pi's is ~/.pi/agent (PI_CODING_AGENT_DIR): point
                       both at one directory to share credentials, models and sessions with pi.
                       One skiff (listener or --mode rpc) at a time per directory: a second exits 1,
                       naming the first (its pid and address, from <agent-dir>/skiff.lock).
  SKIFF_WEB_DEV_DIR    Serve /web from <dir>/index.html instead of the embedded page.
  Provider keys        ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, ... as pi reads them.

Docs: docs/protocol.md (commands and events), docs/security.md (authentication and origins).
`;
