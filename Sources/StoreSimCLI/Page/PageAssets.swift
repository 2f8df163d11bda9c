/// The page's files, compiled into the binary (docs/page.md): one HTML document for every
/// page address (it holds no data; the script fills it), its style and its script, split in
/// modules. Nothing is fetched from anywhere else: no framework, no font.
enum PageAssets {
  /// A file under `/page/`: its text and `Content-Type`.
  struct File {
    var body: String
    var type: String
  }

  static let files: [String: File] = [
    "style.css": File(body: style, type: "text/css; charset=utf-8"),
    "icon.svg": File(body: icon, type: "image/svg+xml"),
    "app.js": File(body: appScript, type: "text/javascript; charset=utf-8"),
    "render.js": File(body: renderScript, type: "text/javascript; charset=utf-8"),
    "rows.js": File(body: rowsScript, type: "text/javascript; charset=utf-8"),
    "actions.js": File(body: actionsScript, type: "text/javascript; charset=utf-8"),
  ]

  static let html = """
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="color-scheme" content="light dark">
    <title>storesim</title>
    <link rel="icon" href="/page/icon.svg">
    <link rel="stylesheet" href="/page/style.css">
    <link rel="modulepreload" href="/page/render.js">
    <link rel="modulepreload" href="/page/rows.js">
    <link rel="modulepreload" href="/page/actions.js">
    <script type="module" src="/page/app.js"></script>
    </head>
    <body>
    <header>
    <h1><a href="/sessions/">storesim</a> <span id="title"></span></h1>
    <p id="clock"></p>
    <p id="live"></p>
    </header>
    <main>
    <section id="sessions" aria-labelledby="sessions-heading" hidden>
    <h2 id="sessions-heading">Sessions</h2>
    <ul id="session-list"></ul>
    </section>
    <form id="token-form" hidden>
    <label for="token">Control token</label> <input id="token" type="password" autocomplete="off">
    <button type="submit">Use token</button>
    </form>
    <p id="problem" role="alert" hidden></p>
    <div id="session" hidden>
    <section aria-labelledby="store-heading">
    <h2 id="store-heading">Store</h2>
    <form id="buy-form" class="bar">
    <label for="buy-product">Product</label> <select id="buy-product"></select>
    <label for="buy-customer">Customer</label> <input id="buy-customer" size="12" autocomplete="off">
    <label for="buy-quantity">Quantity</label> <input id="buy-quantity" type="number" min="1" max="10" value="1">
    <label for="buy-offer">Offer</label> <input id="buy-offer" size="12" placeholder="intro" autocomplete="off">
    <button type="submit">Buy</button>
    </form>
    <form id="advance-form" class="bar">
    <label for="advance-duration">Duration</label> <input id="advance-duration" size="8" value="1mo">
    <button type="submit">Advance</button>
    <button type="button" id="advance-next">Advance to the next event</button>
    </form>
    <div class="bar">
    <input type="checkbox" id="ask-to-buy"> <label for="ask-to-buy">Ask to Buy</label>
    <button type="button" id="billing"></button>
    </div>
    </section>
    <section id="result" aria-labelledby="result-heading" aria-live="polite" hidden>
    <h2 id="result-heading">Last action</h2>
    <p id="result-text"></p>
    <p>Command line: <code id="result-cli"></code></p>
    <p>HTTP: <code id="result-http"></code></p>
    <details><summary>Answer</summary><pre id="result-json"></pre></details>
    </section>
    <section aria-labelledby="customers-heading">
    <h2 id="customers-heading">Customers</h2>
    <div id="customers"></div>
    </section>
    <section aria-labelledby="transactions-heading">
    <h2 id="transactions-heading">Transactions</h2>
    <div id="transactions"></div>
    </section>
    <section aria-labelledby="statuses-heading">
    <h2 id="statuses-heading">Subscription status</h2>
    <div id="statuses"></div>
    <p><button type="button" id="draw-timeline">Draw the timeline</button></p>
    <p id="timeline-box" hidden><img id="timeline" alt="The timeline of every subscription"></p>
    </section>
    <section aria-labelledby="pending-heading">
    <h2 id="pending-heading">Pending requests</h2>
    <div id="pending"></div>
    </section>
    <section aria-labelledby="notifications-heading">
    <h2 id="notifications-heading">Notifications</h2>
    <div id="notifications"></div>
    </section>
    </div>
    </main>
    </body>
    </html>

    """

  /// The tab's icon (a browser asks for one; without it, its console logs a failed load).
  static let icon = """
    <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0058b0"/>\
    <path d="M4 6h8l-1 6H5z" fill="#fff"/></svg>

    """

  static let style = """
    :root {
      color-scheme: light dark;
      --bg: #ffffff; --fg: #1d1d1f; --muted: #5f5f66; --line: #d2d2d7; --panel: #f5f5f7;
      --accent: #0058b0; --bad: #b3261e; --good: #1a7f37;
    }
    @media (prefers-color-scheme: dark) {
      :root {
        --bg: #1c1c1e; --fg: #f5f5f7; --muted: #b0b0b8; --line: #3a3a3c; --panel: #2c2c2e;
        --accent: #6cb4ff; --bad: #ff8a80; --good: #6fdc8c;
      }
    }
    body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.45 system-ui, sans-serif; }
    header { padding: 0.75rem 1.25rem; border-bottom: 1px solid var(--line); background: var(--panel); }
    header h1 { margin: 0; font-size: 1.3rem; }
    header p { margin: 0.2rem 0 0; color: var(--muted); }
    main { padding: 0.5rem 1.25rem 2rem; }
    h2 { font-size: 1.05rem; margin: 1.25rem 0 0.4rem; }
    a { color: var(--accent); }
    table { border-collapse: collapse; width: 100%; }
    th, td { text-align: left; padding: 0.25rem 0.5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
    th { color: var(--muted); font-weight: 600; }
    caption { text-align: left; color: var(--muted); padding-bottom: 0.25rem; }
    code, pre { font-family: ui-monospace, monospace; font-size: 0.9em; }
    pre { white-space: pre-wrap; word-break: break-all; background: var(--panel); padding: 0.5rem; }
    code { background: var(--panel); padding: 0 0.25rem; word-break: break-all; }
    button, input, select { font: inherit; color: inherit; }
    button {
      background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 0.15rem 0.6rem;
      cursor: pointer; margin: 0.1rem 0.15rem 0.1rem 0;
    }
    button:disabled { opacity: 0.5; cursor: default; }
    input, select { background: var(--bg); border: 1px solid var(--line); border-radius: 4px; padding: 0.1rem 0.3rem; }
    input[type=number] { width: 5rem; }
    :focus-visible { outline: 3px solid var(--accent); outline-offset: 1px; }
    .bar { display: flex; flex-wrap: wrap; align-items: center; gap: 0.35rem; margin: 0.35rem 0; }
    .muted { color: var(--muted); }
    .ok { color: var(--good); }
    .bad { color: var(--bad); }
    .pager { display: flex; gap: 0.5rem; align-items: center; margin: 0.35rem 0; }
    .selected { font-weight: 700; }
    .attempts { white-space: pre-line; }
    #problem { color: var(--bad); }
    #timeline { max-width: 100%; border: 1px solid var(--line); }
    """
}
