package dev.baton.work;

import java.util.Objects;

/**
 * Seed 001's subscription identifier, {@code ${displayId};${cameraId}}: one camera shown on one display. The
 * {@link WorkCluster} facade requires this form (so that {@link WorkCluster#unsubscribeAllWithCameraId} and
 * {@code setSessionId} can find the camera and the display); the HTTP API and the planner accept any item id.
 *
 * @param displayId the display's id: non-empty, no {@code ;}
 * @param cameraId  the camera's id: non-empty, no {@code ;}
 */
public record SubscriptionIdentifier(String displayId, String cameraId) {

    public SubscriptionIdentifier {
        Objects.requireNonNull(displayId, "displayId");
        Objects.requireNonNull(cameraId, "cameraId");
        if (displayId.isBlank() || displayId.indexOf(';') >= 0) {
            throw new InvalidWorkItemException("subscriptionIdentifier",
                    "the display id must be non-blank and contain no ';', was '" + displayId + "'");
        }
        if (cameraId.isBlank() || cameraId.indexOf(';') >= 0) {
            throw new InvalidWorkItemException("subscriptionIdentifier",
                    "the camera id must be non-blank and contain no ';', was '" + cameraId + "'");
        }
    }

    /**
     * Parses {@code displayId;cameraId}.
     *
     * @throws InvalidWorkItemException naming {@code subscriptionIdentifier} when the text is not in that form
     */
    public static SubscriptionIdentifier parse(String text) {
        WorkItem.checkId(text);
        int semicolon = text.indexOf(';');
        if (semicolon < 0 || semicolon != text.lastIndexOf(';')) {
            throw new InvalidWorkItemException("subscriptionIdentifier", "subscriptionIdentifier must be"
                    + " 'displayId;cameraId' (one ';' between two non-empty ids), was '" + text + "'");
        }
        String display = text.substring(0, semicolon);
        String camera = text.substring(semicolon + 1);
        if (display.isBlank() || camera.isBlank()) {
            throw new InvalidWorkItemException("subscriptionIdentifier", "subscriptionIdentifier must be"
                    + " 'displayId;cameraId' with both ids non-blank, was '" + text + "'");
        }
        return new SubscriptionIdentifier(display, camera);
    }

    /** Whether {@code text} is an identifier of this camera ({@code *;cameraId}), without throwing. */
    public static boolean isOfCamera(String text, String cameraId) {
        int semicolon = text.indexOf(';');
        return semicolon > 0 && semicolon == text.lastIndexOf(';') && text.substring(semicolon + 1).equals(cameraId);
    }

    /** The identifier's text, {@code displayId;cameraId}. */
    @Override
    public String toString() {
        return displayId + ";" + cameraId;
    }
}
