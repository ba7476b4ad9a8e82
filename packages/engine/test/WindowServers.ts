/**
 * Real HTTP servers on 127.0.0.1 for the discovery tests: each answers a route table with a status and a body,
 * records what it was asked, and can hang. Bodies are the servers' documented response shapes.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/** What a route answers: JSON (an object), raw text with a content type, or nothing at all (a hang). */
export type Reply =
  | { readonly status?: number; readonly json: unknown }
  | { readonly status?: number; readonly text: string; readonly contentType: string }
  | "hang"

/** A route table: `"GET /props"` → reply, or a function of the request body. */
export type Routes = Readonly<Record<string, Reply | ((body: unknown) => Reply)>>

export interface Asked {
  readonly method: string
  readonly path: string
  readonly authorization: string | undefined
  readonly body: unknown
}

export interface TestServer {
  readonly url: string
  readonly asked: ReadonlyArray<Asked>
}

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
  })

const parse = (text: string): unknown => {
  if (text === "") return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const send = (response: ServerResponse, reply: Reply | undefined): void => {
  if (reply === "hang") return
  if (reply === undefined) {
    response.writeHead(404, { "content-type": "text/plain" }).end("404 page not found")
    return
  }
  if ("json" in reply) {
    response.writeHead(reply.status ?? 200, { "content-type": "application/json" }).end(JSON.stringify(reply.json))
    return
  }
  response.writeHead(reply.status ?? 200, { "content-type": reply.contentType }).end(reply.text)
}

/** Starts a server on 127.0.0.1:0 answering `routes` (or `fallback` for any other path); closed with the scope. */
export const serve = (
  routes: Routes,
  fallback?: Reply
): Effect.Effect<TestServer, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => {
      const asked: Array<Asked> = []
      const server = createServer((request, response) => {
        void readBody(request).then((text) => {
          const path = (request.url ?? "/").split("?")[0] ?? "/"
          const body = parse(text)
          asked.push({ method: request.method ?? "GET", path, authorization: request.headers.authorization, body })
          const route = routes[`${request.method} ${path}`]
          send(response, typeof route === "function" ? route(body) : route ?? fallback)
        })
      })
      return new Promise<{ server: typeof server; asked: Array<Asked> }>((resolve) =>
        server.listen(0, "127.0.0.1", () => resolve({ server, asked }))
      )
    }),
    ({ server }) =>
      Effect.promise(() =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
      )
  ).pipe(Effect.map(({ asked, server }) => ({
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    asked
  })))

/** An address where nothing listens: a server is started, its port read, and the server closed. */
export const closedPort: Effect.Effect<string> = Effect.scoped(Effect.map(serve({}), ({ url }) => url))
