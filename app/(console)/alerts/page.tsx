"use client";
// Alerts: what fires now and what resolved lately, the rules, the channels they notify,
// silences, and deliveries (with the dead ones to redeliver). Changes need the admin role.
import { ActiveAlerts } from "../../components/alerts/ActiveAlerts";
import { AlertChannels } from "../../components/alerts/AlertChannels";
import { AlertDeliveries } from "../../components/alerts/AlertDeliveries";
import { AlertRules } from "../../components/alerts/AlertRules";
import { AlertSilences } from "../../components/alerts/AlertSilences";
import { useMe } from "../../lib/queries";

export default function AlertsPage() {
  const me = useMe();
  const admin = me.data?.role === "admin";
  return (
    <>
      <h1>Alerts</h1>
      <ActiveAlerts />
      <AlertRules admin={admin} />
      <AlertChannels admin={admin} />
      <AlertSilences admin={admin} />
      <AlertDeliveries admin={admin} />
    </>
  );
}
