import Foundation
import StoreSimSession

/// The world the CLI runs in: output sinks, environment variables, the folder, the wall clock.
///
/// The live one is built in `main.swift`; tests build one with captured output and fixed values.
public struct CLIEnvironment: Sendable {
  /// Writes to standard output.
  public var writeOut: @Sendable (String) -> Void
  /// Writes to standard error.
  public var writeErr: @Sendable (String) -> Void
  /// Environment variables.
  public var variables: [String: String]
  /// The folder relative paths start from.
  public var currentDirectory: String
  /// The wall clock, read only when a session starts without `--start`.
  public var now: @Sendable () -> Date
  /// Whether standard output is a terminal (colour, interactive shell).
  public var isTerminal: Bool
  /// The width help is folded to: the terminal's, 80 when standard output is not a terminal.
  public var columns: Int = HelpText.width
  /// Reads one line of standard input (the shell); nil at end of input.
  public var readLine: @Sendable () -> String?
  /// Reads one line of standard input holding at most the given bytes of it (the MCP server);
  /// nil: `readLine`, with the cap checked after.
  var readLimitedLine: (@Sendable (Int) -> InputLine?)? = nil
  /// Writes bytes to standard output as they are (`certificate --der`).
  public var writeOutBytes: @Sendable ([UInt8]) -> Void
  /// Random bytes (a new session's signing key; the core has no randomness of its own).
  public var randomBytes: @Sendable (Int) -> [UInt8] = { count in
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
  }
  /// Sends output held so far on its way (a command's output is held until it is over; the
  /// shell and scenario runs release it as they go). Set by `CLI.run`.
  var flushOut: @Sendable () -> Void = {}
  /// Drops output held since the last flush: a command that fails after printing (its save
  /// failed) must not claim what it did not keep. Set by `CLI.run`.
  var discardOut: @Sendable () -> Void = {}
  /// The MCP server's dual mode: a command prints its text to `writeOut` and writes its
  /// `--json` output here, from one run. Nil everywhere else.
  var writeJSON: (@Sendable (String) -> Void)? = nil
  /// The folders files may be read and written in (the MCP server's); nil: anywhere.
  var pathPolicy: PathPolicy? = nil
  /// The session files kept loaded between commands (serve's control API); nil: each command
  /// reads its session.
  var keptSessions: KeptSessions? = nil
  /// Keys given as PEM text instead of files (the control API's `init`: `signing-key` and
  /// `api-key` in the request's body), by the name the command line is given in their place
  /// (`KeyFile.given`). Empty everywhere else.
  var givenKeys: [String: String] = [:]

  /// Creates an environment.
  public init(
    writeOut: @escaping @Sendable (String) -> Void,
    writeErr: @escaping @Sendable (String) -> Void,
    variables: [String: String] = [:],
    currentDirectory: String = FileManager.default.currentDirectoryPath,
    now: @escaping @Sendable () -> Date = { Date() },
    isTerminal: Bool = false,
    readLine: @escaping @Sendable () -> String? = { nil }
  ) {
    self.writeOut = writeOut
    self.writeErr = writeErr
    self.variables = variables
    self.currentDirectory = currentDirectory
    self.now = now
    self.isTerminal = isTerminal
    self.readLine = readLine
    writeOutBytes = { bytes in writeOut(String(decoding: bytes, as: UTF8.self)) }
  }

  /// The environment of the running process.
  public static func live() -> CLIEnvironment {
    var environment = CLIEnvironment(
      writeOut: { text in StandardStream.output.write(text) },
      writeErr: { text in StandardStream.error.write(text) },
      variables: ProcessInfo.processInfo.environment,
      now: { Date() },
      isTerminal: isatty(STDOUT_FILENO) == 1,
      readLine: { Swift.readLine(strippingNewline: true) }
    )
    environment.writeOutBytes = { bytes in bytes.withUnsafeBytes { StandardStream.output.write($0) } }
    let input = LimitedLineReader()
    environment.readLimitedLine = { limit in input.next(limit: limit) }
    if environment.isTerminal { environment.columns = terminalColumns(environment.variables) }
    return environment
  }

  /// `$COLUMNS`, else the terminal's width, else 80; kept within 40...200.
  static func terminalColumns(_ variables: [String: String]) -> Int {
    var columns = variables["COLUMNS"].flatMap { Int($0) } ?? 0
    if columns <= 0 {
      var size = winsize()
      if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 { columns = Int(size.ws_col) }
    }
    return columns > 0 ? min(max(columns, 40), 200) : HelpText.width
  }

  /// An absolute path for a path the user typed; refused (77) when it lies outside the folders
  /// of `pathPolicy`. Every file a command reads or writes by name is found here.
  func resolve(_ path: String) throws -> String {
    let absolute = absolutePath(path)
    guard let pathPolicy else { return absolute }
    do { return try pathPolicy.check(absolute) } catch {
      throw CLIError(code: .permissionDenied, message: error.message)
    }
  }

  /// An absolute path for a path the user typed, whatever the policy: the session's own.
  func absolutePath(_ path: String) -> String {
    if path.hasPrefix("/") { return path }
    if path.hasPrefix("~/"), let home = variables["HOME"] { return home + path.dropFirst() }
    return (currentDirectory as NSString).appendingPathComponent(path)
  }

  /// A copy that writes nowhere, with relative paths from `folder` (a scenario's), under the
  /// same path policy.
  func quiet(in folder: String) -> CLIEnvironment {
    var quiet = CLIEnvironment(
      writeOut: { _ in }, writeErr: { _ in }, variables: variables, currentDirectory: folder, now: now,
      isTerminal: false)
    quiet.pathPolicy = pathPolicy
    return quiet
  }
}
