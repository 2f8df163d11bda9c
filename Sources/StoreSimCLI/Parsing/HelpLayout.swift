/// How help lines are folded: every line fits the width (`minimumWidth` at least), a line that
/// continues a row starts under its hanging indent, and a shell example continues with ` \`.
extension HelpText {
  /// The narrowest width help is folded to; a narrower one is taken as this.
  static let minimumWidth = 40
  /// The fewest columns a row's text may have beside its label; with fewer, the label stands on
  /// a line of its own and the text follows under it (a narrow terminal).
  static let minimumColumnText = 28
  /// The fewest columns a continuation line has after its hanging indent (a deeper indent is
  /// moved left).
  static let shortestContinuation = 20

  /// The width help is folded to for a requested width.
  static func fitted(_ width: Int) -> Int { max(width, minimumWidth) }

  /// A row of a two-column list: `label` indented by `indent`, its text from `column` on (or
  /// after the label and a space when the label is longer), continuing under `column`. When
  /// fewer than `minimumColumnText` columns would be left, the label stands alone and the text
  /// follows four columns further in.
  static func row(_ label: String, text: String, indent: Int = 2, column: Int, width: Int) -> String {
    let width = fitted(width)
    let pad = String(repeating: " ", count: indent)
    let start = max(column, indent + label.count + 1)
    if width - start >= minimumColumnText {
      let line = pad + label.padding(toLength: start - indent, withPad: " ", startingAt: 0) + text
      return wrapLine(line, width: width, hangingIndent: column)
    }
    let under = String(repeating: " ", count: indent + 4)
    return wrapLine(pad + label, width: width) + "\n" + wrapLine(under + text, width: width)
  }

  /// Wraps one line at `width`, breaking at spaces after `hangingIndent` (default: the line's
  /// own indent; at most `width - shortestContinuation`); continuation lines start there. A
  /// word too long for the space after the indent moves left until it fits; one longer than the
  /// width is cut.
  static func wrapLine(_ line: String, width: Int = HelpText.width, hangingIndent: Int? = nil) -> String {
    let width = fitted(width)
    guard line.count > width else { return line }
    let leading = line.prefix { $0 == " " }.count
    let indent = min(hangingIndent ?? leading, width - shortestContinuation)
    var rest = Array(line)
    var lines: [String] = []
    var firstLine = true
    while rest.count > width {
      // A break is a space after the first word (after the label on the first line), else on
      // the first line anywhere after its indent.
      let earliest = firstLine ? max(leading, min(indent, rest.count)) : indent
      var cut = lastBreak(in: rest, upTo: width, after: earliest)
      if cut == nil && firstLine { cut = lastBreak(in: rest, upTo: width, after: leading) }
      if let at = cut {
        lines.append(String(rest[..<at]))
        rest = Array(rest[at...].drop { $0 == " " })
      } else {
        // The first word does not fit after its indent.
        let spaces = rest.prefix { $0 == " " }.count
        let end = rest[spaces...].firstIndex(of: " ") ?? rest.count
        let word = rest[spaces..<end]
        if word.count > width {
          lines.append(String(word.prefix(width)))
          rest = Array(word.dropFirst(width)) + rest[end...]
        } else {
          lines.append(String(repeating: " ", count: width - word.count) + String(word))
          rest = Array(rest[end...].drop { $0 == " " })
        }
      }
      if rest.isEmpty { break }
      rest = Array(String(repeating: " ", count: indent)) + rest
      firstLine = false
    }
    if !rest.isEmpty { lines.append(String(rest)) }
    return lines.joined(separator: "\n")
  }

  /// The last space at or before `limit` that follows a non-space and comes after `earliest`.
  private static func lastBreak(in text: [Character], upTo limit: Int, after earliest: Int) -> Int? {
    var i = min(limit, text.count - 1)
    while i > earliest {
      if text[i] == " " && text[i - 1] != " " { return i }
      i -= 1
    }
    return nil
  }

  /// A shell command line indented by 2, folded to `width` the way a shell reads it: a line
  /// that goes on ends with ` \` and the next starts at column 6. A word (a quoted string is one
  /// word) too long for a line is cut with `\` and goes on at column 0, closing and reopening
  /// single quotes around the cut, so the lines still paste as the one command.
  static func command(_ command: String, width: Int) -> String {
    let width = fitted(width)
    let first = "  " + command
    guard first.count > width else { return first }
    var lines: [String] = []
    var line = "  "
    for word in shellWords(command) {
      let fresh = line.allSatisfy { $0 == " " }
      if !fresh && line.count + 1 + word.count + 2 > width {
        lines.append(line + " \\")
        line = "      "
      }
      let candidate = (line.allSatisfy { $0 == " " } ? line : line + " ") + word
      if candidate.count + 2 <= width {
        line = candidate
        continue
      }
      // Too long even on a line of its own.
      var pieces = cutWord(word, first: width - 1 - line.count, width: width - 1)
      lines.append(line + pieces.removeFirst())
      while pieces.count > 1 { lines.append(pieces.removeFirst()) }
      line = pieces.removeFirst()
    }
    lines.append(line)
    // The last line needs no room for ` \`.
    return lines.joined(separator: "\n")
  }

  /// Words of a command line, a quoted string kept whole.
  private static func shellWords(_ command: String) -> [String] {
    var words: [String] = []
    var word = ""
    var quote: Character?
    for ch in command {
      if let q = quote {
        word.append(ch)
        if ch == q { quote = nil }
      } else if ch == " " {
        if !word.isEmpty { words.append(word) }
        word = ""
      } else {
        if ch == "'" || ch == "\"" { quote = ch }
        word.append(ch)
      }
    }
    if !word.isEmpty { words.append(word) }
    return words
  }

  /// `word` cut into lines ending in `\` (the first at most `first` characters before it, the
  /// others `width`); inside single quotes a cut closes the quote before `\` and reopens it.
  private static func cutWord(_ word: String, first: Int, width: Int) -> [String] {
    var pieces: [String] = []
    var piece = ""
    var quote: Character?
    var limit = max(first, 2)
    for ch in word {
      let closing = quote == "'" ? 1 : 0
      if piece.count + 1 + closing > limit {
        pieces.append(piece + (closing == 1 ? "'" : "") + "\\")
        piece = closing == 1 ? "'" : ""
        limit = width
      }
      piece.append(ch)
      if let q = quote {
        if ch == q { quote = nil }
      } else if ch == "'" || ch == "\"" {
        quote = ch
      }
    }
    pieces.append(piece)
    return pieces
  }
}
