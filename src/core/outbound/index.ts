export { notifyChat, OutboundWebhookError, sendJsonWebhook, type SendOptions } from './sendWebhook';
