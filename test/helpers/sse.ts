/** One Server-Sent Event as a page's EventSource gets it (comments and events without data left out). */
export type Sse = { event: string; id?: string; data: any };

/**
 * Reads a text/event-stream body to its end, handing each event to `on` as it
 * arrives; resolves when the stream ends or is aborted.
 */
export async function readSse(body: ReadableStream<Uint8Array>, on: (e: Sse) => void): Promise<void> {
  const reader = body.getReader();
  const dec = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
    if (done) return;
    buf += dec.decode(value, { stream: true });
    let i;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const e: Sse = { event: 'message', data: null };
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) e.event = line.slice(7);
        else if (line.startsWith('id: ')) e.id = line.slice(4);
        else if (line.startsWith('data: ')) e.data = JSON.parse(line.slice(6));
      }
      if (e.data !== null) on(e);
    }
  }
}
