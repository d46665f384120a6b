"""playwright.devices: device descriptors for new_context(**p.devices["iPhone 13"]).

Each descriptor is built from a short row (screen sizes, scale, OS version) and the user agent of its
family, with a landscape twin; the sizes are those browsers report for the devices. Every descriptor says
default_browser_type; wright drives Chromium whatever it says (a WebKit device gets Safari's user agent,
its viewport and touch, not WebKit)."""

_CHROME = "140.0.0.0"  # Chrome's reduced user agent carries only the major version
_SAFARI = "18.5"


def _ios_ua(kind, os_version, build="15E148", webkit="605.1.15", safari="604.1"):
    device = "iPad; CPU OS" if kind == "iPad" else "iPhone; CPU iPhone OS"
    return ("Mozilla/5.0 (%s %s like Mac OS X) AppleWebKit/%s (KHTML, like Gecko) Version/%s Mobile/%s Safari/%s"
            % (device, os_version, webkit, _SAFARI, build, safari))


def _android_ua(android, model, tablet=False):
    return ("Mozilla/5.0 (Linux; Android %s; %s) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%s %sSafari/537.36"
            % (android, model, _CHROME, "" if tablet else "Mobile "))


# iPhones and iPads: name, iOS version, portrait viewport, landscape viewport (None: the portrait one
# turned), screen (None: the viewport), scale.
_APPLE = [
    ("iPhone 6", "11_0", (375, 667), None, None, 2), ("iPhone 6 Plus", "11_0", (414, 736), None, None, 3),
    ("iPhone 7", "11_0", (375, 667), None, None, 2), ("iPhone 7 Plus", "11_0", (414, 736), None, None, 3),
    ("iPhone 8", "11_0", (375, 667), None, None, 2), ("iPhone 8 Plus", "11_0", (414, 736), None, None, 3),
    ("iPhone SE", "10_3_1", (320, 568), None, None, 2), ("iPhone SE (3rd gen)", "18_5", (375, 667), None, None, 2),
    ("iPhone X", "11_0", (375, 812), None, None, 3), ("iPhone XR", "12_0", (414, 896), None, None, 3),
    ("iPhone 11", "12_2", (414, 715), (800, 364), (414, 896), 2),
    ("iPhone 11 Pro", "12_2", (375, 635), (724, 325), (375, 812), 3),
    ("iPhone 11 Pro Max", "12_2", (414, 715), (808, 364), (414, 896), 3),
    ("iPhone 12", "14_4", (390, 664), (750, 340), (390, 844), 3),
    ("iPhone 12 Pro", "14_4", (390, 664), (750, 340), (390, 844), 3),
    ("iPhone 12 Pro Max", "14_4", (428, 746), (832, 378), (428, 926), 3),
    ("iPhone 12 Mini", "14_4", (375, 629), (712, 325), (375, 812), 3),
    ("iPhone 13", "15_0", (390, 664), (750, 342), (390, 844), 3),
    ("iPhone 13 Pro", "15_0", (390, 664), (750, 342), (390, 844), 3),
    ("iPhone 13 Pro Max", "15_0", (428, 746), (832, 380), (428, 926), 3),
    ("iPhone 13 Mini", "15_0", (375, 629), (712, 327), (375, 812), 3),
    ("iPhone 14", "16_0", (390, 664), (750, 340), (390, 844), 3),
    ("iPhone 14 Plus", "16_0", (428, 746), (832, 378), (428, 926), 3),
    ("iPhone 14 Pro", "16_0", (393, 660), (734, 343), (393, 852), 3),
    ("iPhone 14 Pro Max", "16_0", (430, 740), (814, 380), (430, 932), 3),
    ("iPhone 15", "17_5", (393, 659), (734, 343), (393, 852), 3),
    ("iPhone 15 Plus", "17_5", (430, 739), (814, 380), (430, 932), 3),
    ("iPhone 15 Pro", "17_5", (393, 659), (734, 343), (393, 852), 3),
    ("iPhone 15 Pro Max", "17_5", (430, 739), (814, 380), (430, 932), 3),
    ("iPhone 16", "18_7", (393, 659), (734, 343), (393, 852), 3),
    ("iPhone 16 Plus", "18_7", (430, 739), (814, 380), (430, 932), 3),
    ("iPhone 16 Pro", "18_7", (402, 681), (756, 352), (402, 874), 3),
    ("iPhone 16 Pro Max", "18_7", (440, 763), (838, 390), (440, 956), 3),
    ("iPhone 16e", "18_7", (390, 651), (726, 340), (390, 844), 3),
    ("iPhone 17", "18_7", (402, 681), (756, 352), (402, 874), 3),
    ("iPhone Air", "18_7", (420, 719), (794, 370), (420, 912), 3),
    ("iPhone 17 Pro", "18_7", (402, 681), (756, 352), (402, 874), 3),
    ("iPhone 17 Pro Max", "18_7", (440, 763), (838, 390), (440, 956), 3),
    ("iPhone 17e", "18_7", (390, 651), (726, 340), (390, 844), 3),
    ("iPad (gen 5)", "12_2", (768, 1024), None, None, 2), ("iPad (gen 6)", "12_2", (768, 1024), None, None, 2),
    ("iPad (gen 7)", "12_2", (810, 1080), None, None, 2), ("iPad (gen 11)", "18_5", (656, 944), None, None, 2.5),
    ("iPad Mini", "12_2", (768, 1024), None, None, 2), ("iPad Pro 11", "12_2", (834, 1194), None, None, 2),
]

# Android devices: name, Android version, model in the user agent, portrait viewport, landscape viewport,
# screen, scale, tablet.
_ANDROID = [
    ("Galaxy S5", "5.0", "SM-G900P", (360, 640), None, None, 3, False),
    ("Galaxy S8", "7.0", "SM-G950U", (360, 740), None, None, 3, False),
    ("Galaxy S9+", "8.0.0", "SM-G965U", (320, 658), None, None, 4.5, False),
    ("Galaxy S24", "14", "SM-S921U", (360, 780), None, None, 3, False),
    ("Galaxy A55", "14", "SM-A556B", (480, 1040), None, None, 2.25, False),
    ("Galaxy Tab S4", "8.1.0", "SM-T837A", (712, 1138), None, None, 2.25, True),
    ("Galaxy Tab S9", "14", "SM-X710", (640, 1024), None, None, 2.5, True),
    ("Nexus 4", "4.4.2", "Nexus 4", (384, 640), None, None, 2, False),
    ("Nexus 5", "6.0", "Nexus 5", (360, 640), None, None, 3, False),
    ("Nexus 5X", "8.0.0", "Nexus 5X", (412, 732), None, None, 2.625, False),
    ("Nexus 6", "7.1.1", "Nexus 6", (412, 732), None, None, 3.5, False),
    ("Nexus 6P", "8.0.0", "Nexus 6P", (412, 732), None, None, 3.5, False),
    ("Nexus 7", "6.0.1", "Nexus 7", (600, 960), None, None, 2, True),
    ("Nexus 10", "6.0.1", "Nexus 10", (800, 1280), None, None, 2, True),
    ("Moto G4", "7.0", "Moto G (4)", (360, 640), None, None, 3, False),
    ("Pixel 2", "8.0", "Pixel 2", (411, 731), None, None, 2.625, False),
    ("Pixel 2 XL", "8.0.0", "Pixel 2 XL", (411, 823), None, None, 3.5, False),
    ("Pixel 3", "9", "Pixel 3", (393, 786), None, None, 2.75, False),
    ("Pixel 4", "10", "Pixel 4", (353, 745), None, None, 3, False),
    ("Pixel 4a (5G)", "11", "Pixel 4a (5G)", (412, 765), (840, 312), (412, 892), 2.63, False),
    ("Pixel 5", "11", "Pixel 5", (393, 727), (802, 293), (393, 851), 2.75, False),
    ("Pixel 6", "12", "Pixel 6", (412, 839), (863, 360), (412, 915), 2.625, False),
    ("Pixel 6 Pro", "12", "Pixel 6 Pro", (412, 816), (840, 360), (412, 892), 3.5, False),
    ("Pixel 6a", "12", "Pixel 6a", (412, 839), (863, 360), (412, 915), 2.625, False),
    ("Pixel 7", "14", "Pixel 7", (412, 839), (863, 360), (412, 915), 2.625, False),
    ("Pixel 7 Pro", "13", "Pixel 7 Pro", (412, 816), (840, 360), (412, 892), 3.5, False),
    ("Pixel 7a", "13", "Pixel 7a", (412, 839), (863, 360), (412, 915), 2.625, False),
    ("Pixel 8", "14", "Pixel 8", (412, 839), (863, 360), (412, 915), 2.625, False),
    ("Pixel 8 Pro", "14", "Pixel 8 Pro", (448, 921), (945, 396), (448, 997), 3, False),
    ("Pixel 8a", "14", "Pixel 8a", (412, 839), (863, 360), (412, 915), 2.625, False),
    ("Pixel 9", "14", "Pixel 9", (360, 732), (756, 308), (360, 808), 3, False),
    ("Pixel 9 Pro", "14", "Pixel 9 Pro", (427, 876), (900, 375), (427, 952), 3, False),
    ("Pixel 9 Pro XL", "14", "Pixel 9 Pro XL", (448, 921), (945, 396), (448, 997), 3, False),
    ("Pixel 10", "16", "Pixel 10", (360, 732), (756, 308), (360, 808), 3, False),
    ("Pixel 10 Pro", "16", "Pixel 10 Pro", (427, 876), (900, 375), (427, 952), 3, False),
    ("Pixel 10 Pro XL", "16", "Pixel 10 Pro XL", (448, 921), (945, 396), (448, 997), 3, False),
]

_DESKTOP_UA = {
    "chromium": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%s "
                "Safari/537.36" % _CHROME,
    "firefox": "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:143.0) Gecko/20100101 Firefox/143.0",
    "webkit": "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) "
              "Version/%s Safari/605.1.15" % _SAFARI,
}


def _size(pair):
    return {"width": pair[0], "height": pair[1]}


def _descriptor(ua, viewport, screen, scale, mobile, browser):
    # The screen decides nothing a descriptor carries (Playwright's Python descriptors have no screen
    # either); it is kept in the rows as the record of what the landscape viewport was cut from.
    del screen
    return {"user_agent": ua, "viewport": _size(viewport), "device_scale_factor": scale,
            "is_mobile": mobile, "has_touch": mobile, "default_browser_type": browser}


def _add_pair(out, name, ua, portrait, landscape, screen, scale, browser, screen_turns):
    """The device held upright and turned: landscape's viewport is given, or the upright one turned."""
    screen = screen or portrait
    landscape = landscape or (portrait[1], portrait[0])
    out[name] = _descriptor(ua, portrait, screen, scale, True, browser)
    turned = (screen[1], screen[0]) if screen_turns else screen
    out[name + " landscape"] = _descriptor(ua, landscape, turned, scale, True, browser)


def _build():
    out = {}
    for name, ios, portrait, landscape, screen, scale in _APPLE:
        kind = "iPad" if name.startswith("iPad") else "iPhone"
        old = ios.split("_")[0] in ("10", "11")
        ua = _ios_ua(kind, ios, build="15A372" if old else "15E148", webkit="604.1.38" if old else "605.1.15")
        # iOS reports the upright screen whichever way the device is held.
        _add_pair(out, name, ua, portrait, landscape, screen, scale, "webkit", screen_turns=False)
    for name, android, model, portrait, landscape, screen, scale, tablet in _ANDROID:
        _add_pair(out, name, _android_ua(android, model, tablet), portrait, landscape, screen, scale, "chromium",
                  screen_turns=True)
    for name, browser in (("Desktop Chrome", "chromium"), ("Desktop Edge", "chromium"),
                          ("Desktop Firefox", "firefox"), ("Desktop Safari", "webkit")):
        ua = _DESKTOP_UA[browser] + (" Edg/%s" % _CHROME if "Edge" in name else "")
        hidpi = name == "Desktop Safari"
        out[name] = _descriptor(ua, (1280, 720), (1792, 1120) if hidpi else (1920, 1080), 2 if hidpi else 1,
                                False, browser)
        if not hidpi:
            out[name + " HiDPI"] = _descriptor(ua, (1280, 720), (1792, 1120), 2, False, browser)
    return out


def devices():
    """A fresh dict of every descriptor (callers may change what they get)."""
    return _build()
