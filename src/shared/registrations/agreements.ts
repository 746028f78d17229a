/**
 * The texts a registrant agrees to with the registration form's checkbox: the camp's liability waiver and
 * medical release. Versioned: a change of wording is a new version, so what someone agreed to can be told apart.
 * Spelling alone is not a change of wording (2026-11: US spelling, 'organizer', 'willful', 'authorizes'): a new
 * version would ask every family who signed to sign again for the same terms.
 * Browser-safe data; the pages /camp-waiver and /camp-medical-release render them.
 */
export interface AgreementText {
  version: string;
  title: string;
  path: string;
  paragraphs: string[];
}

/** The waiver and the medical release are signed together, so they share one version. */
export const AGREEMENTS_VERSION = "2026-11-26";

export const LIABILITY_WAIVER: AgreementText = {
  version: AGREEMENTS_VERSION,
  title: "Liability Waiver",
  path: "/camp-waiver",
  paragraphs: [
    "Wrestling is a contact sport. Taking part in a camp or clinic involves physical contact, takedowns, throws and conditioning, and carries a risk of injury, including sprains, fractures, concussions, skin infections and, rarely, serious or permanent injury.",
    "By registering, the athlete, and for an athlete under 18 the parent or legal guardian, accepts these risks, agrees to follow the coaches' instructions and the camp's rules, and confirms the athlete is physically fit to take part.",
    "The athlete and the parent or guardian release the camp organizer, its coaches, staff and the venue from claims for injury, loss or damage arising from ordinary participation in the camp, except where caused by gross negligence or willful misconduct.",
    "The organizer may send home an athlete whose conduct puts others at risk; the cancellation policy then applies as for a cancellation on that day.",
    "Photographs and video may be taken during the camp for coaching; we ask before using any picture of an athlete in our marketing.",
  ],
};

export const MEDICAL_RELEASE: AgreementText = {
  version: AGREEMENTS_VERSION,
  title: "Medical Release",
  path: "/camp-medical-release",
  paragraphs: [
    "If the athlete is injured or falls ill during the camp, our staff give first aid and call the emergency contact given with the registration.",
    "If the emergency contact cannot be reached in time, the parent or guardian authorizes the camp staff to arrange emergency medical treatment, including transport to a hospital, as a qualified medical professional judges necessary.",
    "The parent or guardian agrees to tell us in the registration's special requirements (or through the registration's manage link) about any medical condition, allergy or medication our staff should know of, and is responsible for the cost of treatment not covered by insurance.",
    "Medical information is used only to keep the athlete safe at the camp, is shown only to the camp's coaching and medical staff, and is deleted with the registration (see our privacy policy).",
  ],
};

export const CAMP_POLICY_PATHS = { waiver: LIABILITY_WAIVER.path, medicalRelease: MEDICAL_RELEASE.path, cancellation: "/camp-cancellation-policy" } as const;
