// Every declared API: request and response declarations by API key.
import type { Message } from '../schema.js'
import { ApiVersionsRequest, ApiVersionsResponse } from './18-api-versions.js'

export interface ApiDecl {
  request: Message<any>
  response: Message<any>
}

export const apis: ApiDecl[] = [{ request: ApiVersionsRequest, response: ApiVersionsResponse }]

export const apiByKey = new Map<number, ApiDecl>(apis.map((a) => [a.request.apiKey, a]))
