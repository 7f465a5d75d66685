import { deleteWhere, type CapabilityJobs } from '../jobs/capability.ts';

/** Idempotency keys are kept 24 hours (api.md section 8); rate-limit windows two days at most. */
export const httpJobs: CapabilityJobs = {
  retention: [
    deleteWhere('idempotencyKeys', `DELETE FROM idempotency_keys WHERE created_at < now() - interval '24 hours'`),
    deleteWhere('counters', `DELETE FROM rate_limit_counters WHERE window_start < now() - interval '2 days'`),
  ],
};
