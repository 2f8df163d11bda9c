import Foundation

/// The folders a server that acts for someone else (the MCP server; the HTTP control API) may
/// read and write files in: its project folder (the folder it was started in), the session's
/// folder, and any folder the user allowed when starting it. A path is checked as the system
/// would open it: `..` and `.` are followed, and every symbolic link on the way is resolved, so
/// neither a `../../` nor a link out of the project reaches a file outside.
package struct PathPolicy: Sendable, Equatable {
  /// The folders, each resolved as `check` resolves a path.
  package let folders: [String]
  /// How the refusal names them: `its project folder /x and the session's folder /y`.
  package let named: String
  /// Who is confined (`this MCP server`), and how to widen the rule (`storesim mcp --allow-path DIR`).
  package let owner: String
  package let widening: String

  /// `project` and `sessionFolder` absolute; `allowed` absolute folders the user named.
  package init(project: String, sessionFolder: String, allowed: [String], owner: String, widening: String) {
    var folders: [String] = []
    var names: [String] = []
    for (folder, name) in [(project, "its project folder"), (sessionFolder, "the session's folder")]
      + allowed.map({ ($0, "the allowed folder") })
    {
      let resolved = (try? Self.resolved(folder)) ?? folder
      guard !folders.contains(resolved) else { continue }
      folders.append(resolved)
      names.append("\(name) \(resolved)")
    }
    self.folders = folders
    self.named = names.count > 1 ? names.dropLast().joined(separator: ", ") + " and " + names.last! : names[0]
    self.owner = owner
    self.widening = widening
  }

  /// Why a path is refused; its message names the rule.
  package struct Refusal: Error, Sendable, Equatable {
    package var message: String
  }

  /// The path as the system would reach it, when it lies in one of the folders; else the refusal.
  /// `path` is absolute.
  package func check(_ path: String) throws(Refusal) -> String {
    let shown = path
    guard let resolved = try? Self.resolved(path) else {
      throw Refusal(message: "path '\(shown)' is a symbolic link to nothing; \(owner) does not follow it")
    }
    let inside = folders.contains { folder in
      resolved == folder || resolved.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/")
    }
    guard inside else {
      throw Refusal(
        message: "path '\(shown)' is outside the folders \(owner) may use (\(named); widen with \(widening))")
    }
    return resolved
  }

  /// A dangling symbolic link on the way: it cannot be resolved, and writing through it would
  /// create its target wherever it points.
  struct DanglingLink: Error {}

  /// `path` with every symbolic link of its longest existing beginning resolved, and the rest
  /// (which does not exist yet, so holds no link) with `.` and `..` followed.
  static func resolved(_ path: String) throws(DanglingLink) -> String {
    let components = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    var existing = components.count
    var base = "/"
    while existing > 0 {
      let prefix = "/" + components[..<existing].joined(separator: "/")
      if let real = realpath(prefix, nil) {
        base = String(cString: real)
        free(real)
        break
      }
      var status = stat()
      if lstat(prefix, &status) == 0 { throw DanglingLink() }
      existing -= 1
    }
    var parts = base.split(separator: "/").map(String.init)
    for component in components[existing...] {
      switch component {
      case ".": continue
      case "..": _ = parts.popLast()
      default: parts.append(component)
      }
    }
    return "/" + parts.joined(separator: "/")
  }
}
