import type { ToolDef } from './tool.ts';
import joinRoom from './tools/join-room.ts';
import listen from './tools/listen.ts';
import say from './tools/say.ts';
import leave from './tools/leave.ts';
import listBookingLinks from './tools/list-booking-links.ts';
import findSlots from './tools/find-slots.ts';
import bookSlot from './tools/book-slot.ts';
import quoteCall from './tools/quote-call.ts';
import placeCall from './tools/place-call.ts';
import getCall from './tools/get-call.ts';
import hangUp from './tools/hang-up.ts';

/** Every assistant tool, one file each in tools/, listed here and nowhere else: the seven of api.md, then the calls tools. */
export const MCP_TOOLS: ToolDef[] = [
  joinRoom, listen, say, leave, listBookingLinks, findSlots, bookSlot,
  quoteCall, placeCall, getCall, hangUp,
] as unknown as ToolDef[];
