import StoreSim

/// The OpenAPI 3.1 document of the control API (`GET /storesim/v1/openapi.json`, checked in as
/// docs/control-api.openapi.json), made from the command table as the operations are: each
/// operation's request body is the schema of the command's MCP tool (`CommandCalls.inputSchema`)
/// and its answer the command's `--json` schema from docs/schema (`ResponseSchemas`).
enum ControlOpenAPI {
  /// The docs/schema file of a command's answer when it is not named after the command.
  static let schemaOf: [String: String] = [
    "approve": "buy", "entitlements": "transactions", "restore": "transactions", "advance": "events",
    "cancel": "events", "resume": "events", "expire": "events", "renew": "events", "resolve": "events",
    "price-increase": "events", "consent": "events",
  ]

  /// The statuses a refusal can have (`ControlError.status(of:)`).
  static let refusals = ["400", "403", "404", "409", "422"]

  /// The document of the standard table as served, made once, when first asked for (15 ms).
  static let standard = document(CommandTable.standard).rendered(pretty: true) + "\n"

  static func document(_ table: CommandTable) -> JSONOutput {
    var paths: [String: JSONOutput] = [
      "/storesim/v1/openapi.json": .object([
        "get": operation(
          "openapi", summary: "This document", body: nil, answer: .object(["type": .string("object")]), status: "200")
      ]),
      "/storesim/v1/sessions": .object([
        "get": operation(
          "sessions", summary: "List the sessions ('default' first, when serve was started with one)", body: nil,
          answer: reference("sessions"), status: "200"),
        "post": operation(
          "init", summary: "Make a session from a configuration (the .storekit file's JSON) with init's options",
          body: makeSchema(table), answer: reference("init"), status: "201"),
      ]),
      "/storesim/v1/sessions/{session}": .object([
        "parameters": .array([sessionParameter]),
        "delete": operation(
          "deleteSession", summary: "Delete a session and its files (not 'default')", body: nil,
          answer: reference("deleted"), status: "200"),
      ]),
    ]
    for spec in CommandCalls.operations(table) {
      let schema = schemaOf[spec.name] ?? spec.name
      var answer =
        ResponseSchemas.all.contains { $0.name == schema } ? reference(schema) : .object(["type": .string("object")])
      // A drawing, a page or a certificate's bytes (`timeline {"svg": true}`) is no JSON: as text.
      if spec.options.contains(where: \.valueIsOptional) || spec.options.contains(where: { $0.name == "der" }) {
        answer = .object(["anyOf": .array([answer, reference("TextAnswer")])])
      }
      paths["/storesim/v1/sessions/{session}/\(spec.name)"] = .object([
        "parameters": .array([sessionParameter]),
        "post": operation(
          spec.name, summary: spec.abstract, body: CommandCalls.inputSchema(spec, paths: false), answer: answer,
          status: "200"),
      ])
    }
    return .object([
      "openapi": .string("3.1.0"),
      "info": .object([
        "title": .string("storesim control API"), "version": .string(storesimVersion),
        "description": .string(
          "Every storesim command that reads or changes a session, over HTTP, on serve's port (docs/control-api.md). "
            + "A session's App Store Server API answers under /storesim/v1/sessions/{session} as its base URL."),
      ]),
      "servers": .array([.object(["url": .string("http://127.0.0.1:8080")])]),
      "paths": .object(paths),
      "components": .object(["schemas": .object(components())]),
    ])
  }

  private static let sessionParameter = JSONOutput.object([
    "name": .string("session"), "in": .string("path"), "required": .bool(true),
    "schema": .object([
      "type": .string("string"), "pattern": .string("^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"),
    ]),
    "example": .string("default"),
    "description": .string("a session id, or 'default' (the session serve was started with)"),
  ])

  private static func reference(_ name: String) -> JSONOutput {
    .object(["$ref": .string("#/components/schemas/\(name)")])
  }

  private static func operation(
    _ id: String, summary: String, body: JSONOutput?, answer: JSONOutput, status: String
  ) -> JSONOutput {
    var responses: [String: JSONOutput] = [
      status: .object([
        "description": .string("the answer"), "content": .object(["application/json": .object(["schema": answer])]),
      ])
    ]
    for refusal in refusals {
      responses[refusal] = .object([
        "description": .string("refused; nothing changed"),
        "content": .object(["application/json": .object(["schema": reference("ControlError")])]),
      ])
    }
    return .object([
      "operationId": .string(id), "summary": .string(summary),
      "requestBody": body.map {
        .object(["required": .bool(false), "content": .object(["application/json": .object(["schema": $0])])])
      },
      "responses": .object(responses),
    ])
  }

  /// `POST /storesim/v1/sessions`'s body: `configuration`, an optional `session` id, and init's
  /// options (those that name no file; its two keys as PEM text).
  private static func makeSchema(_ table: CommandTable) -> JSONOutput {
    var schema = CommandCalls.inputSchema(table.spec(named: "init")!, paths: false)
    if case .object(var fields) = schema, case .object(var properties)? = fields["properties"] {
      properties["arguments"] = nil
      properties["configuration"] = .object([
        "type": .string("object"), "description": .string("the .storekit file's JSON (never a path)"),
      ])
      properties["session"] = .object([
        "type": .string("string"), "pattern": .string("^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"),
        "description": .string("the new session's id (default: a new random one)"),
      ])
      properties["signing-key"] = .object([
        "type": .string("string"),
        "description": .string(
          "the P-256 private key's PEM text (never a path) the signing chain is made from (default: a new random key)"),
      ])
      properties["api-key"] = .object([
        "type": .string("string"),
        "description": .string(
          "the team's In-App Purchase key: the .p8 file's PEM text (never a path), with key-id and issuer"),
      ])
      fields["properties"] = .object(properties)
      fields["required"] = .array([.string("configuration")])
      schema = .object(fields)
    }
    return schema
  }

  /// docs/schema's schemas and the control API's own.
  private static func components() -> [String: JSONOutput] {
    var schemas: [String: JSONOutput] = [:]
    for (name, json) in ResponseSchemas.all {
      schemas[name] = (try? JSONParser.parse(Array(json.utf8))).map(JSONOutput.init(node:))
    }
    let string = JSONOutput.object(["type": .string("string")])
    schemas["ControlError"] = .object([
      "type": .string("object"), "required": .array([.string("error")]), "additionalProperties": .bool(false),
      "properties": .object([
        "error": .object([
          "type": .string("object"), "required": .array([.string("code"), .string("message")]),
          "additionalProperties": .bool(false),
          "properties": .object(["code": string, "message": string, "field": string]),
        ])
      ]),
    ])
    schemas["TextAnswer"] = .object([
      "type": .string("object"), "required": .array([.string("text")]), "additionalProperties": .bool(false),
      "properties": .object(["text": string]),
    ])
    schemas["sessions"] = .object([
      "type": .string("object"), "required": .array([.string("sessions"), .string("limit")]),
      "properties": .object([
        "sessions": .object([
          "type": .string("array"),
          "items": .object([
            "type": .string("object"), "required": .array([.string("session")]),
            "properties": .object(["session": string]),
          ]),
        ]),
        "limit": .object(["type": .string("integer")]),
      ]),
    ])
    schemas["deleted"] = .object([
      "type": .string("object"), "required": .array([.string("session"), .string("deleted")]),
      "properties": .object(["session": string, "deleted": .object(["type": .string("boolean")])]),
    ])
    return schemas
  }
}
