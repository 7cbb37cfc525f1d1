import { z } from "@hono/zod-openapi";
import { DEFAULT_SECRET_OVERLAP_SECONDS, MAX_REDIRECT_URIS, MAX_SECRET_OVERLAP_SECONDS } from "../../domain/oauth.ts";
import { ALL_SCOPES } from "../../domain/scopes.ts";
import type { Assert, Equal } from "../../domain/type-equality.ts";
import type { ApplicationRecord, InstallationRecord } from "../../services/applications.ts";
import { Name, Timestamp, Uuid } from "./common.ts";
import { ScopeName } from "./settings.ts";

// The wire shapes of OAuth applications in the settings area (docs/apps.md), answered by
// functions/routes/applications.ts.

const Person = z.object({ id: Uuid, name: z.string() });
const ClientId = z.string().openapi({ description: "The OAuth client_id.", example: "app_3xQ9bV7LmN2pR8sT4wY6zA" });
const RedirectUris = z
  .array(z.string().min(1).max(2000))
  .min(1)
  .max(MAX_REDIRECT_URIS)
  .openapi({
    description:
      "Where the authorization server may send the person back: https, or http to a loopback address (any port); matched exactly.",
    example: ["https://app.example.com/oauth/callback"],
  });
const Scopes = z.array(ScopeName).min(1).max(ALL_SCOPES.length);

export const ApplicationSchema = z
  .object({
    id: Uuid,
    clientId: ClientId,
    name: z.string(),
    redirectUris: z.array(z.string()),
    scopes: z.array(ScopeName).openapi({ description: "What it may ask for; a .manage scope brings its .read." }),
    public: z.boolean().openapi({ description: "A public client (no secret, PKCE only): a tool on a person's machine." }),
    createdAt: Timestamp,
    createdBy: Person.nullable(),
  })
  .openapi("Application");
type _ApplicationAgrees = Assert<Equal<z.infer<typeof ApplicationSchema>, ApplicationRecord>>;

export const CreatedApplicationSchema = z
  .object({
    application: ApplicationSchema,
    clientSecret: z
      .string()
      .nullable()
      .openapi({ description: "The client secret (opsroom_cs_...): shown this once; null for a public application." }),
  })
  .openapi("CreatedApplication");

export const CreateApplicationSchema = z.strictObject({
  name: Name.openapi({ example: "Acme Planner" }),
  redirectUris: RedirectUris,
  scopes: Scopes,
  public: z.boolean().optional().openapi({ description: "Default false: a confidential client with a secret." }),
});

export const UpdateApplicationSchema = z.strictObject({ name: Name, redirectUris: RedirectUris, scopes: Scopes }).partial();

export const RotateClientSecretSchema = z.strictObject({
  overlapSeconds: z
    .number()
    .int()
    .min(0)
    .max(MAX_SECRET_OVERLAP_SECONDS)
    .optional()
    .openapi({
      description: `How long the current secret keeps working; default ${DEFAULT_SECRET_OVERLAP_SECONDS} (a day), 0: not at all.`,
    }),
});

export const RotatedClientSecretSchema = z.object({
  clientSecret: z.string().openapi({ description: "The new secret: shown this once." }),
  previousSecretExpiresAt: Timestamp.nullable().openapi({ description: "Until when the old secret works; null: it stopped now." }),
});

export const InstallationSchema = z
  .object({
    id: Uuid,
    application: z.object({ id: Uuid, name: z.string(), clientId: ClientId }),
    scopes: z.array(ScopeName).openapi({ description: "What the organisation allowed it: the union of the consents given." }),
    installedBy: Person.nullable(),
    installedAt: Timestamp,
    lastUsedAt: Timestamp.nullable(),
  })
  .openapi("Installation");
type _InstallationAgrees = Assert<Equal<z.infer<typeof InstallationSchema>, InstallationRecord>>;

export const ApplicationSettingsSchema = z
  .object({
    allowDynamicClientRegistration: z.boolean().openapi({
      description:
        "Applications registered dynamically (RFC 7591, POST /oauth/register) may be installed here. Off unless an owner turns it on.",
    }),
    requireVerifiedEmail: z.boolean().openapi({
      description:
        "A person whose email address is unconfirmed reaches none of the organisation's data (403 email_unverified), nor an application acting for them, until they follow the link mailed to them. Off unless an owner turns it on.",
    }),
  })
  .openapi("ApplicationSettings");
